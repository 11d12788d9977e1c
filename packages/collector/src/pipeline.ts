// The collector's stages wired together (docs/decisions/0037-collector-stages-and-api-boundary.md): receive (otlp/, ingest/) →
// process (process/) → detect (detection/) → store (storage/). Storage takes processed batches and runs the
// process stage's transaction half and the detection stage through the port its contract defines
// (storage/batch-rows.ts WriteStages), which write-stages.ts builds; this module opens stores with it.
import type { LoopThresholds } from './detection/index.js';
import type { Storage } from './storage/contract.js';
import { type BackendOptions, openBackend } from './storage/open.js';
import { writeStagesSource } from './write-stages.js';

/** How a store is opened: the backend's options, and the loop detectors' thresholds its writes run with. */
export type OpenOptions = Omit<BackendOptions, 'stages'> & {
  /** Retry-loop detector thresholds. */
  thresholds?: Partial<LoopThresholds>;
};

/**
 * Opens the store a `--db` value names (a `postgres://` URL, else a SQLite file; `:memory:` for a throwaway
 * one), migrated and with the write stages wired.
 */
export function openStorage(db: string, options: OpenOptions = {}): Promise<Storage> {
  const { thresholds, ...backend } = options;
  return openBackend(db, { ...backend, stages: writeStagesSource(thresholds) });
}
