import { describe, expect, it } from 'vitest';
import { endParked, Parked, type ParkedEnd } from './parked.js';

function table(max = 10) {
  let now = 0;
  const ended: [string, ParkedEnd][] = [];
  const parked = new Parked<string>({
    max,
    onEnd: (value, why) => ended.push([value, why]),
    now: () => now,
  });
  return { parked, ended, advance: (ms: number) => (now += ms) };
}

describe('Parked', () => {
  it('gives back what waits under a key, first parked first, once', () => {
    const { parked } = table();
    parked.park('k', 'a', 1000);
    parked.park('k', 'b', 1000);
    expect(parked.take('k')).toBe('a');
    expect(parked.take('k')).toBe('b');
    expect(parked.take('k')).toBeUndefined();
    expect(parked.size).toBe(0);
  });

  it('ends a call idle past its bound; a touch keeps it waiting', () => {
    const { parked, ended, advance } = table();
    parked.park('polled', 'task', 100);
    parked.park('quiet', 'leg', 100);
    advance(80);
    expect(parked.touch('polled', 100)).toBe('task');
    advance(40);
    parked.sweep();
    expect(ended).toEqual([['leg', 'idle']]);
    expect(parked.take('polled')).toBe('task');
  });

  it('ends the oldest past its size, and everything when the process stops', () => {
    const { parked, ended } = table(2);
    parked.park('a', 'first', 1000);
    parked.park('b', 'second', 1000);
    parked.park('c', 'third', 1000);
    expect(ended).toEqual([['first', 'evicted']]);
    endParked();
    expect(ended).toEqual([
      ['first', 'evicted'],
      ['second', 'stopped'],
      ['third', 'stopped'],
    ]);
    expect(parked.size).toBe(0);
  });

  it('a failing end loses that call only', () => {
    const ended: string[] = [];
    const parked = new Parked<string>({
      max: 10,
      onEnd: (value) => {
        if (value === 'bad') throw new Error('span broken');
        ended.push(value);
      },
    });
    parked.park('a', 'bad', 1000);
    parked.park('b', 'good', 1000);
    parked.endAll('stopped');
    expect(ended).toEqual(['good']);
  });
});
