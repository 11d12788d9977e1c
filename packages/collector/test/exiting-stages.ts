// Write stages that end the writer thread they run on when a batch holds a call of EXIT_TOOL, and are the real
// stages otherwise: for the tests of a writer thread that dies in the middle of a batch's transaction.
import type { WriteStages } from '../src/storage/batch-rows.js';
import { createWriteStages as realStages } from '../src/write-stages.js';

export const EXIT_TOOL = 'end_the_writer_thread';

export function createWriteStages(options: unknown): WriteStages {
  const stages = realStages(options);
  return {
    ...stages,
    rows: (plan, stored) => {
      // In a worker thread, process.exit ends that thread alone.
      if (plan.calls.tool.includes(EXIT_TOOL)) process.exit(7);
      return stages.rows(plan, stored);
    },
  };
}
