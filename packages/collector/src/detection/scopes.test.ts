// Which scopes a batch re-reads: a key seen before (in the batch, the stored trace, the conversation's filter),
// some tools' calls for keys one tool decides, the whole scope for a cycle's, and a churn only once its key was
// seen often enough; and how the batch's keys climb their conversation's filter.
import { describe, expect, it } from 'vitest';
import type { TriggerKey } from '../detectors/loops/index.js';
import { emptyFilter, type KeyFilter } from './key-filter.js';
import { addKeys, batchChecks } from './scopes.js';
import { type TouchedCall, touchedCalls } from './touched.js';

const repeat = (k: string): TriggerKey => ({ key: `r:${k}`, wholeScope: false, prior: 1 });
const cycle = (k: string): TriggerKey => ({ key: `c:${k}`, wholeScope: true, prior: 1 });
const churn = (k: string): TriggerKey => ({ key: `ch:${k}`, wholeScope: false, prior: 3 });
const touched = (tool: string, keys: TriggerKey[], trace = 't1'): TouchedCall => ({
  traceId: trace,
  conversationId: 'conv',
  tool,
  startNs: 0n,
  keys,
  ends: [],
});
/** The checks of one batch against fresh filters. */
const checksOf = (calls: TouchedCall[], existed = false) =>
  batchChecks(
    touchedCalls(calls),
    () => existed,
    () => emptyFilter(),
  ).checks;

describe('batchChecks', () => {
  it('reads nothing for new keys of a new trace, and a tool of the scope for a key repeated in the batch', () => {
    const calls = [touched('get', [repeat('a')]), touched('list', [repeat('b')])];
    expect(checksOf(calls)).toEqual([]);
    expect(checksOf([...calls, touched('get', [repeat('a')])])).toEqual([
      { scope: 'trace', key: 't1', tools: ['get'] },
      { scope: 'conversation', key: 'conv', tools: ['get'] },
    ]);
  });

  it('reads the whole scope for a cycle key, and every key of a trace stored before', () => {
    const calls = [
      touched('get', [repeat('a'), cycle('a')]),
      touched('get', [repeat('a'), cycle('a')]),
    ];
    expect(checksOf(calls).map((c) => c.tools)).toEqual([null, null]);
    expect(checksOf([touched('get', [repeat('x')])], true)).toEqual([
      { scope: 'trace', key: 't1', tools: ['get'] },
    ]);
  });

  it('re-reads for a churn key only once the conversation has seen it three times before', () => {
    const filter = emptyFilter();
    const batch = (trace: string) =>
      batchChecks(
        touchedCalls([touched('put', [churn('k')], trace)]),
        () => false,
        () => filter,
      );
    for (const trace of ['a', 'b', 'c']) {
      const { checks, changed } = batch(trace);
      expect(checks, trace).toEqual([]);
      expect(changed, trace).toEqual(new Set(['conv']));
    }
    expect(batch('d').checks).toEqual([{ scope: 'conversation', key: 'conv', tools: ['put'] }]);
    // At the top rung a key changes nothing more: the filter is not written back.
    expect(batch('e').changed).toEqual(new Set());
  });

  it('climbs one rung per call of a batch, and never counts a rung it did not add', () => {
    const filter = emptyFilter();
    const filterOf = (): KeyFilter => filter;
    const three = ['a', 'b', 'c'].map((t) => touched('put', [churn('k')], t));
    expect(batchChecks(touchedCalls(three), () => false, filterOf).changed).toEqual(
      new Set(['conv']),
    );
    expect(
      batchChecks(touchedCalls([touched('put', [churn('k')], 'd')]), () => false, filterOf).checks,
    ).toEqual([{ scope: 'conversation', key: 'conv', tools: ['put'] }]);
    // Two calls climb two rungs only: a third earlier call is still missing.
    const other = emptyFilter();
    addKeys(other, touchedCalls([touched('put', [churn('m')]), touched('put', [churn('m')])]));
    expect(
      batchChecks(
        touchedCalls([touched('put', [churn('m')], 'e')]),
        () => false,
        () => other,
      ).checks,
    ).toEqual([]);
  });

  it('asks for a re-read at each key’s own prior where two keys of a batch share a number', () => {
    // These two keys share the 30-bit number the batch counts by (found by search): a churn key needing three
    // earlier calls, then a repeat key needing one. Counted together, the second asks for its re-read.
    const churnFirst: TriggerKey = {
      key: 'churn:put:10151',
      wholeScope: false,
      prior: 3,
      run: 'argument_churn\u0000put',
    };
    const repeatAfter: TriggerKey = { key: 'churn:put:51209', wholeScope: false, prior: 1 };
    expect(
      checksOf([touched('put', [churnFirst], 'a'), touched('get', [repeatAfter], 'b')]),
    ).toEqual([{ scope: 'conversation', key: 'conv', tools: ['get'] }]);
  });
});
