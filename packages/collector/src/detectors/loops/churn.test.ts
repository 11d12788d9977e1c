// argument_churn as a specification: one tool called with new values of one shape, failing the same way every
// time, flags; a fix that works, a new kind of failure, or too few variants stays quiet.
import { describe, expect, it } from 'vitest';
import { churn } from './churn.js';
import { DEFAULT_LOOP_THRESHOLDS } from './scope.js';
import { type CallSpec, c, call, scopeOf, spans } from './test-scope.js';

const detect = (specs: CallSpec[]) => churn.detect(scopeOf(specs), DEFAULT_LOOP_THRESHOLDS);

/** A failing write: INVALID_INPUT at /date unless told otherwise. */
const bad = (input: string | null, rest: Partial<CallSpec> = {}) =>
  c('write', input, { code: 'INVALID_INPUT', path: '/date', ...rest });
const ok = (input: string) => c('write', input, { output: 'written' });

describe('argument_churn flags', () => {
  it.each([
    {
      name: 'four distinct inputs, one code, one path',
      calls: [bad('a'), bad('b'), bad('c'), bad('d')],
      spans: spans(0, 1, 2, 3),
      evidence: { inputHashes: ['a', 'b', 'c', 'd'], code: 'INVALID_INPUT', path: '/date' },
    },
    {
      name: 'other tools interleaved',
      calls: [bad('a'), c('read', 'x'), bad('b'), c('think', 't'), bad('c'), bad('d')],
      spans: spans(0, 2, 4, 5),
      evidence: { inputHashes: ['a', 'b', 'c', 'd'], code: 'INVALID_INPUT', path: '/date' },
    },
    {
      name: 'an input tried twice among three distinct ones',
      calls: [bad('a'), bad('a'), bad('b'), bad('c')],
      spans: spans(0, 1, 2, 3),
      evidence: { inputHashes: ['a', 'b', 'c'], code: 'INVALID_INPUT', path: '/date' },
    },
    {
      name: 'issues recorded on some calls only, the same path where recorded',
      calls: [bad('a'), bad('b', { path: null }), bad('c'), bad('d', { path: null })],
      spans: spans(0, 1, 2, 3),
      evidence: { inputHashes: ['a', 'b', 'c', 'd'], code: 'INVALID_INPUT', path: '/date' },
    },
    {
      name: 'the run before a success, which ends it',
      calls: [bad('a'), bad('b'), bad('c'), bad('d'), bad('e'), ok('f'), bad('g')],
      spans: spans(0, 1, 2, 3, 4),
      evidence: { inputHashes: ['a', 'b', 'c', 'd', 'e'], code: 'INVALID_INPUT', path: '/date' },
    },
    {
      name: 'a failure of another code starts a run of its own',
      calls: [bad('z', { code: 'UPSTREAM' }), bad('a'), bad('b'), bad('c'), bad('d')],
      spans: spans(1, 2, 3, 4),
      evidence: { inputHashes: ['a', 'b', 'c', 'd'], code: 'INVALID_INPUT', path: '/date' },
    },
  ])('$name', ({ calls, spans: ids, evidence }) => {
    const flags = detect(calls);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      kind: 'argument_churn',
      severity: 'error',
      tool: 'write',
      inputHash: evidence.inputHashes[0],
      count: ids.length,
      spanIds: ids,
      evidence: { ...evidence, wasted: { calls: ids.length - 1 } },
    });
  });

  it('leaves the path out when no call recorded issues', () => {
    const flags = detect(['a', 'b', 'c', 'd'].map((h) => bad(h, { path: null, code: 'REJECTED' })));
    expect(flags).toHaveLength(1);
    expect(flags[0]?.evidence).not.toHaveProperty('path');
    expect(flags[0]?.evidence?.code).toBe('REJECTED');
  });

  it('says the tool, the variants, the failure and what it wasted', () => {
    const [flag] = detect([bad('a'), bad('b'), bad('c'), bad('d')]);
    expect(flag?.summary).toBe(
      'write was called 4 times in a row with 4 different inputs of one shape, and every call failed with INVALID_INPUT at /date: the agent kept changing values without fixing what it was told. Wasted: 3 more calls, 300 ms.',
    );
  });
});

describe('argument_churn stays quiet', () => {
  it.each([
    { name: 'churn that ends in a success', calls: [bad('a'), bad('b'), bad('c'), ok('d')] },
    { name: 'a repaired input that then succeeds', calls: [bad('a'), ok('b'), ok('b')] },
    {
      name: 'a success of the tool in between',
      calls: [bad('a'), bad('b'), ok('c'), bad('d'), bad('e')],
    },
    {
      name: 'different codes',
      calls: [bad('a'), bad('b', { code: 'UPSTREAM' }), bad('c'), bad('d', { code: 'UPSTREAM' })],
    },
    { name: 'only two distinct input hashes', calls: [bad('a'), bad('b'), bad('a'), bad('b')] },
    {
      name: 'different first failing paths',
      calls: [bad('a'), bad('b', { path: '/to' }), bad('c'), bad('d', { path: '/to' })],
    },
    {
      name: 'different input shapes',
      calls: [bad('a'), bad('b', { shape: 'other' }), bad('c'), bad('d', { shape: 'other' })],
    },
    {
      name: 'a failing call without an input hash',
      calls: [bad('a'), bad('b'), bad(null), bad('c')],
    },
    { name: 'three calls only', calls: [bad('a'), bad('b'), bad('c')] },
    {
      name: 'one tool over many distinct inputs that succeed (batch edits)',
      calls: Array.from({ length: 8 }, (_, i) => ok(`file${i}`)),
    },
    {
      name: 'several tools failing once each',
      calls: ['w1', 'w2', 'w3', 'w4'].map((t, i) => c(t, `x${i}`, { code: 'INVALID_INPUT' })),
    },
  ])('$name', ({ calls }) => {
    expect(detect(calls)).toEqual([]);
  });

  it('follows churnMinCalls', () => {
    const scope = scopeOf([bad('a'), bad('b'), bad('c'), bad('d')]);
    expect(churn.detect(scope, { ...DEFAULT_LOOP_THRESHOLDS, churnMinCalls: 5 })).toEqual([]);
  });
});

describe('argument_churn trigger keys', () => {
  it('keys a failing call by tool, shape and code; a successful call has none', () => {
    expect(churn.triggerKeys(call(bad('a'), 0))).toEqual([
      'churn\u0000write\u0000shape\u0000INVALID_INPUT',
    ]);
    expect(churn.triggerKeys(call(ok('a'), 0))).toEqual([]);
  });
});
