import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BodyBudget } from './body-budget.js';

// Only identity matters to the budget (requests are WeakMap keys).
const request = () => ({}) as IncomingMessage;

describe('BodyBudget', () => {
  it('refuses bytes that do not fit while others hold bytes, and lets a lone request through', () => {
    const budget = new BodyBudget(100);
    const a = request();
    const b = request();
    expect(budget.take(a, 150)).toBe(true); // alone: over the limit is still let through
    expect(budget.take(b, 1)).toBe(false);
    expect(budget.stats).toEqual({ limitBytes: 100, usedBytes: 150, peakBytes: 150 });
    budget.release(a);
    expect(budget.take(b, 60)).toBe(true);
    expect(budget.take(a, 50)).toBe(false);
    expect(budget.take(a, 40)).toBe(true);
    expect(budget.stats.usedBytes).toBe(100);
  });

  it('reserves what room there is before inflating and takes the unused part back', () => {
    const budget = new BodyBudget(100);
    const a = request();
    const b = request();
    expect(budget.takeUpTo(a, 1000)).toBe(1000); // alone
    budget.giveBack(a, 930);
    expect(budget.stats.usedBytes).toBe(70);
    expect(budget.takeUpTo(b, 1000)).toBe(30);
    expect(budget.takeUpTo(b, 10)).toBe(0);
    budget.giveBack(b, 1000); // never more than it holds
    expect(budget.stats.usedBytes).toBe(70);
  });

  it('releases each request once, however often its end is reported', () => {
    const budget = new BodyBudget(100);
    const a = request();
    const b = request();
    budget.take(a, 40);
    budget.take(b, 30);
    budget.release(a);
    budget.release(a);
    budget.release(request());
    expect(budget.stats).toEqual({ limitBytes: 100, usedBytes: 30, peakBytes: 70 });
  });
});
