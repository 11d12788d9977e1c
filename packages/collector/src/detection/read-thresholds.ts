// The thresholds of the flags computed at read time (drift, contracts, result sizes), kept by the store as its
// read settings (storage/read-settings.ts): the collector that writes a store remembers its own in it, so
// `report --db` on the same file lists the same flags as that collector's API and dashboard (the demo's short
// rollout grace was lost when the report read the file with the defaults).
import { z } from 'zod';
import { DEFAULT_DRIFT_THRESHOLDS, type DriftThresholds } from '../detectors/drift.js';

const storedSchema = z
  .object({
    rolloutGraceNs: z
      .string()
      .regex(/^\d{1,20}$/)
      .transform(BigInt),
    minFailures: z.number().int().min(1),
    minTraces: z.number().int().min(1),
    schemaTokenBudget: z.number().int().min(1),
    resultTokenBudget: z.number().int().min(1),
  })
  .partial();

/** The text a store keeps for `t`. */
export function encodeThresholds(t: DriftThresholds): string {
  return JSON.stringify({ ...t, rolloutGraceNs: t.rolloutGraceNs.toString() });
}

/** What a stored value says, field by field; an unreadable value counts as nothing stored. */
export function decodeThresholds(value: unknown): Partial<DriftThresholds> {
  if (typeof value !== 'string') return {};
  try {
    const parsed = storedSchema.safeParse(JSON.parse(value));
    if (!parsed.success) return {};
    return Object.fromEntries(
      Object.entries(parsed.data).filter(([, v]) => v !== undefined),
    ) as Partial<DriftThresholds>;
  } catch {
    return {};
  }
}

/** The thresholds given, over the defaults. */
export function resolveThresholds(given: Partial<DriftThresholds> = {}): DriftThresholds {
  return { ...DEFAULT_DRIFT_THRESHOLDS, ...given };
}

/** The thresholds a store's readers use: its read settings over the defaults. */
export function thresholdsOf(store: { readSettings(): string | null }): DriftThresholds {
  return resolveThresholds(decodeThresholds(store.readSettings()));
}
