// COPY text as the PostgreSQL writer sends it: every reserved character, null, bytes and 64-bit values read back
// from a real server exactly as they were given, and the text itself as the format defines it.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Cell, CopyText, copyBytes, sendCopy } from '../src/storage/postgres/pg-copy.js';
import { BinaryCopy, blockRowsCopy } from '../src/storage/postgres/pg-copy-binary.js';
import { CopyIn } from '../src/storage/postgres/pg-copy-in.js';

const copyText = (rows: Cell[][]) => copyBytes(rows).toString('utf8');

import { freshPgDatabase, PG_URL } from './backends.js';

describe('COPY text', () => {
  it('escapes what the format reserves and leaves the rest as it is', () => {
    const text = copyText([
      ['plain', 'a\\b', 'tab\there', 'line\nbreak', 'cr\rhere', null, undefined],
      [42, -1.5, 9_223_372_036_854_775_807n, new Uint8Array([0, 171, 255]), ''],
    ]);
    expect(text).toBe(
      'plain\ta\\\\b\ttab\\there\tline\\nbreak\tcr\\rhere\t\\N\t\\N\n' +
        '42\t-1.5\t9223372036854775807\t\\\\x00abff\t\n',
    );
  });

  it('writes every character of a long row', () => {
    const long = 'ü'.repeat(150_000);
    const bytes = new Uint8Array(100_000).map((_, i) => i % 256);
    expect(copyText([[long, bytes], ['after']])).toBe(
      `${long}\t\\\\x${Buffer.from(bytes).toString('hex')}\nafter\n`,
    );
  });

  it('writes short strings of any characters the same as long ones, from one array reused per row', () => {
    const text = new CopyText(4);
    const row: Cell[] = [];
    const rows: Cell[][] = [
      ['é', 'ünï\u{1F600}', '\u0001\u007f', 'a\\b\tc', '~ !'],
      [`${'x'.repeat(64)}\n`, 'y'.repeat(65), -12, 2 ** 53 + 2, 0.1],
    ];
    for (const r of rows) {
      row.length = 0;
      row.push(...r);
      text.row(row);
    }
    expect(text.bytes().toString('utf8')).toBe(
      'é\tünï\u{1F600}\t\u0001\u007f\ta\\\\b\\tc\t~ !\n' +
        `${'x'.repeat(64)}\\n\t${'y'.repeat(65)}\t-12\t9007199254740994\t0.1\n`,
    );
  });

  it('reads a view of a larger buffer as its own bytes only', () => {
    const whole = Buffer.from([1, 2, 3, 4, 5]);
    expect(copyText([[whole.subarray(1, 3)]])).toBe('\\\\x0203\n');
  });
});

describe('CopyIn', () => {
  it('sends the statement, its data and the end of the data in one write, before any answer', () => {
    // A stand-in for node-postgres's connection that records what is written between a cork and its uncork.
    const written: string[] = [];
    let corked = false;
    const stream = {
      cork: () => {
        corked = true;
      },
      uncork: () => {
        corked = false;
        written.push('uncork');
      },
      write: (b: Uint8Array) => {
        written.push(`${corked ? 'corked' : 'loose'} ${Buffer.from(b).toString('latin1')}`);
        return true;
      },
    };
    const connection = {
      stream,
      query: (text: string) => stream.write(Buffer.from(`Q${text}`, 'latin1')),
    } as unknown as pg.Connection;
    new CopyIn('COPY t (a) FROM STDIN', Buffer.from('x\n')).submit(connection);
    expect(written).toEqual([
      'corked QCOPY t (a) FROM STDIN',
      `corked d${Buffer.from([0, 0, 0, 6]).toString('latin1')}`,
      'corked x\n',
      `corked c${Buffer.from([0, 0, 0, 4]).toString('latin1')}`,
      'uncork',
    ]);
  });
});

describe.skipIf(!PG_URL)('COPY into PostgreSQL', () => {
  it('fails a COPY the server refuses with its error, and the connection goes on: the data sent with it is dropped', async () => {
    const client = new pg.Client(await freshPgDatabase());
    await client.connect();
    try {
      // The data is a statement's text: were it read as one, the table would exist after.
      const data = Buffer.from('CREATE TABLE leaked (a int)\n');
      await expect(
        sendCopy(client as unknown as pg.PoolClient, 'missing', 'a', data),
      ).rejects.toThrow(/"missing" does not exist/);
      const after = await client.query<{ t: string | null }>(
        "SELECT to_regclass('leaked')::text AS t",
      );
      expect(after.rows).toEqual([{ t: null }]);
      await client.query('CREATE TABLE t (a int)');
      await sendCopy(client as unknown as pg.PoolClient, 't', 'a', Buffer.from('1\n2\n'));
      const count = await client.query<{ n: string }>('SELECT count(*)::text AS n FROM t');
      expect(count.rows[0]?.n).toBe('2');
    } finally {
      await client.end();
    }
  });

  it('stores every value as it was given, and a bad row fails the COPY with the server error', async () => {
    const client = new pg.Client(await freshPgDatabase());
    await client.connect();
    try {
      await client.query('CREATE TABLE t (s text, n bigint, b bytea, x double precision)');
      const strings = ['back\\slash', 'tab\t', '\nnew', 'cr\r', '\\N', 'ünï\u{1F600}', ''];
      const rows: Cell[][] = strings.map((s, i) => [
        s,
        2n ** 62n + BigInt(i),
        Buffer.from([i, 0, 255]),
        i / 3,
      ]);
      rows.push([null, null, null, null]);
      await sendCopy(client as unknown as pg.PoolClient, 't', 's, n, b, x', copyBytes(rows));
      const back = await client.query<{
        s: string | null;
        n: string | null;
        b: Buffer | null;
        x: number | null;
      }>('SELECT s, n::text AS n, b, x FROM t');
      expect(back.rows).toEqual(
        rows.map(([s, n, b, x]) => ({ s, n: n === null ? null : String(n), b, x })),
      );
      await expect(
        sendCopy(
          client as unknown as pg.PoolClient,
          't',
          's, n, b, x',
          copyBytes([['ok', 'not a number', null, null]]),
        ),
      ).rejects.toThrow(/bigint/);
      const count = await client.query<{ n: string }>('SELECT count(*)::text AS n FROM t');
      expect(count.rows[0]?.n).toBe(String(rows.length));
    } finally {
      await client.end();
    }
  });
});

describe.skipIf(!PG_URL)('binary COPY into PostgreSQL', () => {
  it('stores 64-bit integers, text and bytes as they were given; an empty batch sends nothing', async () => {
    const client = new pg.Client(await freshPgDatabase());
    await client.connect();
    try {
      await client.query('CREATE TABLE b (i bigint, j bigint, s text, p bytea)');
      const rows = [
        { i: 0, j: -1, s: '', p: new Uint8Array(0) },
        {
          i: 2 ** 53 - 1,
          j: -(2 ** 53) + 1,
          s: 'ünï\u{1F600} tab\tline\n\\',
          p: new Uint8Array([0, 255, 10]),
        },
        { i: 4_294_967_296, j: 4_294_967_295, s: 'a b c', p: new Uint8Array(70_000).fill(7) },
      ];
      const copy = new BinaryCopy(8);
      for (const r of rows) copy.row(4).int8(r.i).int8(r.j).text(r.s).bytea(r.p);
      copy.row(4).int8(1).int8(2).text('null bytes').bytea(null);
      await sendCopy(client as unknown as pg.PoolClient, 'b', 'i, j, s, p', copy.end(), 'binary');
      const back = await client.query<{ i: string; j: string; s: string; p: Buffer | null }>(
        'SELECT i::text AS i, j::text AS j, s, p FROM b',
      );
      expect(back.rows).toEqual([
        ...rows.map((r) => ({ i: String(r.i), j: String(r.j), s: r.s, p: Buffer.from(r.p) })),
        { i: '1', j: '2', s: 'null bytes', p: null },
      ]);
      expect(() => new BinaryCopy().row(1).int8(2 ** 53)).toThrow(RangeError);
      expect(blockRowsCopy([])).toHaveLength(0);
    } finally {
      await client.end();
    }
  });
});
