import { describe, expect, it } from 'vitest';
import { afterResponse, finishAnswered } from './after-response.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('afterResponse', () => {
  it('runs queued work in the next turn, in order, and a failing task stops no other', async () => {
    const ran: number[] = [];
    afterResponse((n: number) => ran.push(n), 1);
    afterResponse(() => {
      throw new Error('broken telemetry');
    }, undefined);
    afterResponse((n: number) => ran.push(n), 3);
    await Promise.resolve();
    expect(ran).toEqual([]);
    await turn();
    expect(ran).toEqual([1, 3]);
  });

  it('runs what is queued at once when asked (a flush that must include answered calls)', async () => {
    const ran: string[] = [];
    afterResponse((s: string) => ran.push(s), 'a');
    finishAnswered();
    expect(ran).toEqual(['a']);
    await turn();
    expect(ran).toEqual(['a']);
  });
});
