// The schema hash changes exactly when the contract changes; `.describe()` texts reach the JSON Schema.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../src/index.js';

const make = (input: z.ZodType, output: z.ZodType = z.object({ ok: z.boolean() })) =>
  defineTool({
    name: 't',
    version: '1',
    effect: 'read',
    description: 'd',
    input,
    output,
    execute: () => ({ ok: true }),
  });

describe('schemaHash', () => {
  it('is stable for the same contract, whatever the key order or the tool description', () => {
    const a = make(z.object({ a: z.string(), b: z.number() }));
    const b = make(z.object({ b: z.number(), a: z.string() }));
    const c = defineTool({
      name: 'other',
      version: '9',
      effect: 'write',
      description: 'changed',
      input: z.object({ a: z.string(), b: z.number() }),
      output: z.object({ ok: z.boolean() }),
      execute: () => ({ ok: true }),
    });
    expect(a.schemaHash).toBe(b.schemaHash);
    expect(a.schemaHash).toBe(c.schemaHash);
  });

  it('changes when a field type, a constraint, an enum value, an output field or a description changes', () => {
    const base = make(z.object({ id: z.string() })).schemaHash;
    const variants = [
      make(z.object({ id: z.number() })),
      make(z.object({ id: z.string().min(1) })),
      make(z.object({ id: z.string().optional() })),
      make(z.object({ id: z.string() }).strict()),
      make(z.object({ id: z.string().describe('the id') })),
      make(z.object({ id: z.string() }), z.object({ ok: z.boolean(), extra: z.string() })),
      make(z.object({ id: z.string() }), z.object({ ok: z.enum(['yes']) })),
    ].map((t) => t.schemaHash);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('exposes the JSON Schemas with descriptions, input as accepted and output as returned', () => {
    const tool = make(
      z
        .object({
          customerId: z.string().describe('Customer id'),
          includeHistory: z.boolean().default(false),
        })
        .strict(),
    );
    expect(tool.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: {
        customerId: { type: 'string', description: 'Customer id' },
        includeHistory: { type: 'boolean', default: false },
      },
      required: ['customerId'],
      additionalProperties: false,
    });
    expect(tool.outputJsonSchema).toMatchObject({
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
    });
  });
});
