// What a batch's parts of logical calls link to (calls/logical-call.ts: `awaits`, `resumes`, a task's hash): the
// stored rows the writer looks up, in any trace, and the hashes it locks (PostgreSQL, several collectors), so a
// part that arrives later, in another trace or batch or at another collector, finds its call (decision 0054).
// Almost every batch has none: the writer then does nothing more.
import type { PartLinks } from '../storage/batch-rows.js';
import type { WriteBatch } from '../storage/write-batch.js';

const sorted = (s: Set<string>) => [...s].sort();

/** The links of `batch`'s calls: a part resuming X looks for a stored part awaiting X, and the other way round. */
export function batchLinks(batch: WriteBatch): PartLinks {
  const awaits = new Set<string>();
  const resumes = new Set<string>();
  const tasks = new Set<string>();
  for (const l of batch.calls.logical) {
    if (l === null) continue;
    if (l.resumes !== null) awaits.add(l.resumes);
    if (l.awaits !== null) resumes.add(l.awaits);
    if (l.task?.idHash) tasks.add(l.task.idHash);
  }
  return {
    awaits: sorted(awaits),
    resumes: sorted(resumes),
    tasks: sorted(tasks),
    locks: sorted(new Set([...awaits, ...resumes, ...tasks])),
  };
}
