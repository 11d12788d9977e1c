// The recovery rule as a specification: what a failed call led to, what counts as the next call, and the counts.
import { describe, expect, it } from 'vitest';
import { type RecoveryCall, recoveriesOf } from './recovery.js';
import { MESSAGES_PER_CODE, tallyRecoveries } from './recovery-tally.js';

let n = 0;
const call = (
  tool: string,
  input: string | null,
  code: string | null,
  callId: string | null = null,
): RecoveryCall => {
  n++;
  return {
    traceId: 't',
    spanId: `s${n}`,
    tool,
    inputHash: input,
    code,
    callId,
    startNs: BigInt(n),
  };
};
const outcomes = (calls: RecoveryCall[]) => recoveriesOf(calls, () => true).map((r) => r.outcome);

describe('recoveriesOf', () => {
  it('names each outcome by the next call of the scope', () => {
    expect(
      outcomes([
        call('get_order', 'a', 'INVALID_INPUT'),
        call('get_order', 'b', 'INVALID_INPUT'),
        call('get_order', 'b', 'INVALID_INPUT'),
        call('get_order', 'c', null),
        call('order_intent', 'x', 'REJECTED'),
        call('catalogue', 'y', null),
        call('get_order', 'd', 'FAILED'),
      ]),
    ).toEqual(['failed_again', 'repeated', 'repaired', 'switched', 'gave_up']);
  });

  it('does not take a span of the same logical call (one agent call id) for the next call', () => {
    const legs = [
      call('get_order', 'a', 'RETRYABLE', 'call_1'),
      call('get_order', 'a', 'RETRYABLE', 'call_1'),
    ];
    expect(outcomes([...legs, call('get_order', 'a', null, 'call_2')]).slice(0, 1)).toEqual([
      'repeated',
    ]);
    const [first] = recoveriesOf([...legs, call('get_order', 'a', null, 'call_2')], () => true);
    expect(first?.recovered).toBe(true);
    expect(outcomes(legs)).toEqual(['gave_up', 'gave_up']);
  });

  it('leaves out of the five a same-tool next call whose input change cannot be told', () => {
    expect(outcomes([call('search', null, 'timeout'), call('search', null, null)])).toEqual([
      'unknown_input',
    ]);
    expect(outcomes([call('search', null, 'timeout'), call('other', null, null)])).toEqual([
      'switched',
    ]);
  });

  it('counts only the failures asked for, though every call of the scope can come next', () => {
    const calls = [call('a', '1', 'X'), call('b', '2', 'Y'), call('b', '3', null)];
    expect(recoveriesOf(calls, (c) => c.tool === 'b').map((r) => r.outcome)).toEqual(['repaired']);
  });
});

describe('tallyRecoveries', () => {
  it('gives the repair rate over known outcomes and the share recovered over all failures', () => {
    const rs = recoveriesOf(
      [
        call('t', '1', 'E'),
        call('t', '2', null),
        call('t', null, 'E'),
        call('t', null, null),
        call('t', '5', 'E'),
        call('t', '5', null),
      ],
      () => true,
    );
    const { tools, total } = tallyRecoveries(rs.map((recovery) => ({ recovery, message: null })));
    expect(tools[0]).toMatchObject({
      tool: 't',
      failures: 3,
      unknownInput: 1,
      recovered: 3,
      repairRate: 0.5,
      recoveredRate: 1,
      outcomes: { repaired: 1, failed_again: 0, repeated: 1, switched: 0, gave_up: 0 },
    });
    expect(total.failures).toBe(3);
  });

  it('splits a code by message, the most frequent few per code', () => {
    const failures = Array.from({ length: 8 }, (_, i) => call('t', `${i}`, 'REJECTED'));
    const rs = recoveriesOf(failures, () => true);
    const counted = rs.map((recovery, i) => ({ recovery, message: `m${i < 2 ? 0 : i}` }));
    const [t] = tallyRecoveries(counted).tools;
    expect(t?.byMessage).toHaveLength(MESSAGES_PER_CODE);
    expect(t?.byMessage[0]).toMatchObject({ code: 'REJECTED', message: 'm0', failures: 2 });
  });
});
