// The settings a store keeps for the stages that read it (Storage.readSettings): one row of toolscope_settings
// whose text storage stores and hands back, never parses (detection/read-thresholds.ts defines it).

/** The row of toolscope_settings that holds them (the name predates this module; stores keep it). */
export const READ_SETTINGS_KEY = 'read_thresholds';

export type ReadSettingsOptions = {
  /** The settings of this process's readers, as JSON text. */
  readSettings?: string | undefined;
  /** Write them to the store (a collector that serves it), so `report --db` on it reads with the same. */
  rememberReadSettings?: boolean | undefined;
  /** Use what the store remembers instead, when it remembers any (a report reading the store directly). */
  recallReadSettings?: boolean | undefined;
};

/** The settings a store opened with `o` answers with, given what the store remembered (when asked). */
export function settingsOf(o: ReadSettingsOptions, recalled: unknown): string | null {
  if (o.recallReadSettings && typeof recalled === 'string') return recalled;
  return o.readSettings ?? null;
}
