// Which flags are new against a baseline: same kind and tool, a loop's input hash, and a cycle's steps read as
// one cycle wherever it was entered (A→B→C is B→C→A, not A→C→B).
import { describe, expect, it } from 'vitest';
import { cycleKey, flagKey, newFlags } from '../src/cli/flag-match.js';

const step = (tool: string, inputHash: string) => ({ tool, inputHash });
const a = step('search', 'h1');
const b = step('open', 'h2');
const c = step('search', 'h3');
const cycle = (...steps: (typeof a)[]) => ({
  kind: 'tool_cycle',
  tool: 'search',
  evidence: { cycle: steps },
});

describe('flags new against a baseline', () => {
  it('reads a cycle the same from any step, and a reordered one as another cycle', () => {
    expect(cycleKey([b, c, a])).toBe(cycleKey([a, b, c]));
    expect(cycleKey([c, a, b])).toBe(cycleKey([a, b, c]));
    expect(cycleKey([a, c, b])).not.toBe(cycleKey([a, b, c]));
    expect(cycleKey([a, b])).not.toBe(cycleKey([a, b, a, b]));
    expect(newFlags([cycle(b, c, a), cycle(a, c, b)], [cycle(a, b, c)])).toEqual([cycle(a, c, b)]);
  });

  it('matches loops by tool and input hash, other flags by kind and tool', () => {
    const loop = (tool: string, inputHash: string) => ({
      kind: 'identical_retry',
      tool,
      evidence: { inputHash, traceIds: ['t'] },
    });
    const drift = { kind: 'output_drift', tool: 'get_order', evidence: { paths: ['x'] } };
    const baseline = [loop('get_order', 'h1'), drift];
    expect(
      newFlags(
        [loop('get_order', 'h1'), loop('get_order', 'h2'), loop('check', 'h1'), drift],
        baseline,
      ),
    ).toEqual([loop('get_order', 'h2'), loop('check', 'h1')]);
    expect(flagKey({ ...drift, kind: 'input_drift' })).not.toBe(flagKey(drift));
    // A cycle is matched by its steps, whatever input hash the flag also names.
    expect(flagKey({ ...cycle(a, b), evidence: { cycle: [a, b], inputHash: 'x' } })).toBe(
      flagKey(cycle(b, a)),
    );
  });
});
