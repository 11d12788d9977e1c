// When a flag of this run is the same as one of the baseline's: same kind and tool, and for a loop the same
// input (evidence.inputHash) or the same cycle of (tool, input) steps, wherever the cycle was entered.
import { z } from 'zod';
import { cycleStepSchema } from './baseline.js';

/** What matching reads of a flag: the API's flag and the baseline's both have it. */
export type MatchableFlag = { kind: string; tool: string; evidence: object };

const cycleSchema = z.array(cycleStepSchema).min(1);

/**
 * The steps as one text, starting at the rotation that sorts first: A→B→C, B→C→A and C→A→B are one cycle,
 * A→C→B is another.
 */
export function cycleKey(steps: z.infer<typeof cycleSchema>): string {
  const texts = steps.map((s) => `${s.tool}\u0001${s.inputHash}`);
  let best: string | undefined;
  for (let i = 0; i < texts.length; i++) {
    const rotated = [...texts.slice(i), ...texts.slice(0, i)].join('\u0002');
    if (best === undefined || rotated < best) best = rotated;
  }
  return best ?? '';
}

/** The identity of a flag across runs (input hashes match across runs only with one TOOLSCOPE_HASH_KEY). */
export function flagKey(flag: MatchableFlag): string {
  const base = `${flag.kind}\u0000${flag.tool}`;
  const cycle = cycleSchema.safeParse(Reflect.get(flag.evidence, 'cycle'));
  if (cycle.success) return `${base}\u0000cycle\u0000${cycleKey(cycle.data)}`;
  const input: unknown = Reflect.get(flag.evidence, 'inputHash');
  if (typeof input === 'string' && input !== '') return `${base}\u0000input\u0000${input}`;
  return base;
}

/** The flags of `current` that no flag of `baseline` matches, in their order. */
export function newFlags<F extends MatchableFlag>(current: F[], baseline: MatchableFlag[]): F[] {
  const known = new Set(baseline.map(flagKey));
  return current.filter((f) => !known.has(flagKey(f)));
}
