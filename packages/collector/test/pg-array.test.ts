// Array parameters written as literals by the collector (pg-array.ts) read back on a real PostgreSQL server as
// the values they were made of: quotes, backslashes, braces, commas, the word NULL, empty and non-ASCII text,
// JSON histograms, bigints past 2^53.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgArray } from '../src/storage/postgres/pg-array.js';
import { PG_URL } from './backends.js';

let client: pg.Client;

beforeAll(async () => {
  if (!PG_URL)
    throw new Error(
      'no PostgreSQL server (TOOLSCOPE_TEST_PG): run through scripts/with-postgres.sh',
    );
  client = new pg.Client(PG_URL);
  await client.connect();
});
afterAll(() => client?.end());

const roundTrip = async (items: (string | null)[]) =>
  (await client.query<{ a: (string | null)[] }>('SELECT $1::text[] AS a', [pgArray(items)])).rows[0]
    ?.a;

describe('pgArray', () => {
  it('reads back as the text it was made of', async () => {
    const items = [
      '',
      'NULL',
      'a,b',
      '{x}',
      'say "hi"',
      'C:\\dir\\',
      '\\"',
      ' padded ',
      'é✓😀',
      '{"12":3,"40":1}',
      null,
    ];
    expect(await roundTrip(items)).toEqual(items);
  });

  it('reads back any strings as they were', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null }), { maxLength: 20 }),
        async (items) => {
          // PostgreSQL text holds no NUL character.
          const clean = items.map((s) => (s === null ? null : s.replaceAll('\u0000', '')));
          expect(await roundTrip(clean)).toEqual(clean);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes numbers and bigints as the number types read them', async () => {
    const big = 1_764_590_000_000_000_123n;
    const { rows } = await client.query<{ b: string[]; i: number[] }>(
      'SELECT $1::bigint[]::text[] AS b, $2::int[] AS i',
      [pgArray([big, 0n, -5n]), pgArray([1, 2, 3])],
    );
    expect(rows[0]).toEqual({ b: [String(big), '0', '-5'], i: [1, 2, 3] });
    expect(pgArray([])).toBe('{}');
    expect(() => pgArray([Number.NaN])).toThrow(RangeError);
  });
});
