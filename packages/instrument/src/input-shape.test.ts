import { describe, expect, it } from 'vitest';
import { inputShape } from './input-shape.js';

describe('inputShape', () => {
  it('lists sorted key paths with JSON types and no values', () => {
    expect(inputShape({ includeHistory: true, customerId: 42 })).toBe(
      'customerId:number,includeHistory:boolean',
    );
    expect(inputShape({ items: [{ sku: 'a', qty: 1 }, { sku: 'b' }], tags: [] })).toBe(
      'items[].qty:number,items[].sku:string,tags:array',
    );
    expect(inputShape({ a: [1, 'x'] })).toBe('a[]:number|string');
    expect(inputShape(null)).toBe('(root):null');
    expect(inputShape({})).toBe('(root):object');
  });

  it('quotes keys that would break the format and bounds its size', () => {
    expect(inputShape({ 'a,b:c': 1 })).toBe('"a,b:c":number');
    const wide = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`k${String(i).padStart(3, '0')}`, i]),
    );
    const shape = inputShape(wide);
    expect(shape.split(',').length).toBe(65);
    expect(shape).not.toMatch(/\d{2,}:number.*199/);
  });
});
