// The write stages the storage contract's port asks for (storage/batch-rows.ts WriteStages): the process
// stage's transaction half and the detection stage, wired. A writer builds them where it runs: the main thread,
// or a writer thread of its own, which imports this module by its URL (kept small for that: no backend here).
import { z } from 'zod';
import { createLoopDetection, type LoopThresholds } from './detection/index.js';
import { batchLinks } from './process/links.js';
import { mergeBatches } from './process/merge.js';
import { batchRows } from './process/rows.js';
import type { WriteStages, WriteStagesSource } from './storage/batch-rows.js';

// Every threshold's name, once (one added to LoopThresholds and not here fails to compile).
const THRESHOLDS: Record<keyof LoopThresholds, true> = {
  identicalRetryMin: true,
  retryCap: true,
  cycleMinRounds: true,
  churnMinCalls: true,
  pollMinCalls: true,
};
const thresholdName = z.enum(Object.keys(THRESHOLDS) as [keyof LoopThresholds]);

/** The options a writer thread receives by structured clone, checked there. */
const stagesOptionsSchema = z.object({
  thresholds: z.partialRecord(thresholdName, z.number().int().positive()),
});

/** The write stages (storage/batch-rows.ts): what a writer builds from the source `writeStagesSource` gives. */
export function createWriteStages(options: unknown): WriteStages {
  const { thresholds } = stagesOptionsSchema.parse(options);
  return {
    links: batchLinks,
    rows: batchRows,
    merge: mergeBatches,
    loops: createLoopDetection(thresholds),
  };
}

/** Where a writer, in this thread or its own, gets the write stages with these thresholds. */
export function writeStagesSource(thresholds: Partial<LoopThresholds> = {}): WriteStagesSource {
  return { module: import.meta.url, options: { thresholds } };
}
