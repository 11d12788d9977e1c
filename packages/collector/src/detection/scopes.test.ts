// Which scopes a batch re-reads: a key seen before (in the batch, the stored trace, the conversation's filter),
// some tools' calls for keys one tool decides, the whole scope for a cycle's, and a churn only once its key was
// seen often enough.
import { describe, expect, it } from 'vitest';
import type { TriggerKey } from '../detectors/loops/index.js';
import { emptyFilter, type KeyFilter } from './key-filter.js';
import { addBatchKeys, scopeChecks, type TouchedCall } from './scopes.js';

const repeat = (k: string): TriggerKey => ({ key: `r:${k}`, wholeScope: false, prior: 1 });
const cycle = (k: string): TriggerKey => ({ key: `c:${k}`, wholeScope: true, prior: 1 });
const churn = (k: string): TriggerKey => ({ key: `ch:${k}`, wholeScope: false, prior: 3 });
const touched = (tool: string, keys: TriggerKey[], trace = 't1'): TouchedCall => ({
  traceId: trace,
  conversationId: 'conv',
  tool,
  keys,
});

describe('scopeChecks', () => {
  it('reads nothing for new keys of a new trace, and a tool of the scope for a key repeated in the batch', () => {
    const filters = new Map<string, KeyFilter>();
    const filterOf = (id: string) =>
      filters.get(id) ?? filters.set(id, emptyFilter()).get(id) ?? emptyFilter();
    const calls = [touched('get', [repeat('a')]), touched('list', [repeat('b')])];
    expect(scopeChecks(calls, () => false, filterOf)).toEqual([]);
    const again = [...calls, touched('get', [repeat('a')])];
    expect(scopeChecks(again, () => false, filterOf)).toEqual([
      { scope: 'trace', key: 't1', tools: ['get'] },
      { scope: 'conversation', key: 'conv', tools: ['get'] },
    ]);
  });

  it('reads the whole scope for a cycle key, and every key of a trace stored before', () => {
    const filterOf = () => emptyFilter();
    const calls = [
      touched('get', [repeat('a'), cycle('a')]),
      touched('get', [repeat('a'), cycle('a')]),
    ];
    expect(scopeChecks(calls, () => false, filterOf).map((c) => c.tools)).toEqual([null, null]);
    expect(scopeChecks([touched('get', [repeat('x')])], () => true, filterOf)).toEqual([
      { scope: 'trace', key: 't1', tools: ['get'] },
    ]);
  });

  it('re-reads for a churn key only once the conversation has seen it three times before', () => {
    const filter = emptyFilter();
    const filterOf = () => filter;
    const checksOf = (trace: string) =>
      scopeChecks([touched('put', [churn('k')], trace)], () => false, filterOf);
    for (const trace of ['a', 'b', 'c']) {
      expect(checksOf(trace), trace).toEqual([]);
      addBatchKeys([touched('put', [churn('k')], trace)], filterOf);
    }
    expect(checksOf('d')).toEqual([{ scope: 'conversation', key: 'conv', tools: ['put'] }]);
  });
});
