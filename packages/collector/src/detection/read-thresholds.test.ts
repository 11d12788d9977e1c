// The read thresholds as a store keeps them: what is written reads back, and what cannot be read counts as unsaid.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DRIFT_THRESHOLDS } from '../detectors/drift.js';
import {
  decodeThresholds,
  encodeThresholds,
  resolveThresholds,
  thresholdsOf,
} from './read-thresholds.js';

describe('read thresholds kept as a store’s read settings', () => {
  it('reads back what it wrote, the nanosecond grace included', () => {
    const t = resolveThresholds({ rolloutGraceNs: 12_345_678_901_234n, schemaTokenBudget: 7 });
    expect(decodeThresholds(encodeThresholds(t))).toStrictEqual(t);
    expect(thresholdsOf({ readSettings: () => encodeThresholds(t) })).toStrictEqual(t);
  });

  it.each([
    ['nothing kept', null, {}],
    ['not JSON', '{', {}],
    ['a field out of range', '{"minTraces":0}', {}],
    [
      'some fields',
      '{"minTraces":5,"resultTokenBudget":900}',
      { minTraces: 5, resultTokenBudget: 900 },
    ],
  ])('%s: the defaults, under what it says', (_, text, said) => {
    expect(thresholdsOf({ readSettings: () => text })).toStrictEqual({
      ...DEFAULT_DRIFT_THRESHOLDS,
      ...said,
    });
  });
});
