// Packed span blocks (decisions 0011, 0080, 0084): the dictionaries are frozen, a block round-trips as a zstd frame
// over dictionary v2 (codec 2) with its content's checksum, a deflated block (codec 1), a frame without a checksum
// and a text block written before are read as they are, and a damaged or unknown block is reported and left out
// rather than failing a read;
// through a SQLite file: a trace written now reads back whole, beside a block stored as text by an older release.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Decompressor } from 'zstd-napi';
import zstd from 'zstd-napi/binding.js';
import { openStorage } from '../src/index.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { packSpans, unpackBlock } from '../src/storage/block-packing.js';
import { encodeSpan } from '../src/storage/span-codec.js';
import { SPAN_DICTIONARY_V1, SPAN_DICTIONARY_V1_SHA256 } from '../src/storage/span-dictionary.js';
import {
  SPAN_DICTIONARY_V2,
  SPAN_DICTIONARY_V2_SHA256,
} from '../src/storage/span-dictionary-v2.js';
import { PG_URL } from './backends.js';
import { callSpan, traceIdOf } from './conformance/spans.js';
import { upgradedPostgres } from './old-databases.js';
import { writeSpans } from './write-spans.js';

/**
 * Codec 1 as decision 0011 defines it, written out here: the codec byte, then raw deflate with dictionary v1, at
 * the level the collector writes (3 since decision 0038; the level is not part of the format).
 */
const codecV1 = (json: string, level = 3) =>
  Buffer.concat([
    Buffer.from([1]),
    deflateRawSync(json, { level, dictionary: SPAN_DICTIONARY_V1 }),
  ]);

/** Dictionary v2's id, as its header holds it (little-endian after the 4-byte magic number). */
const V2_ID = SPAN_DICTIONARY_V2.readUInt32LE(4);

const viaLibrary = new Decompressor();
viaLibrary.loadDictionary(SPAN_DICTIONARY_V2);

describe('packed span blocks', () => {
  it('keeps the dictionaries of versions 1 and 2 byte for byte, v1 whole at the end of v2', () => {
    expect(createHash('sha256').update(SPAN_DICTIONARY_V1).digest('hex')).toBe(
      SPAN_DICTIONARY_V1_SHA256,
    );
    expect(createHash('sha256').update(SPAN_DICTIONARY_V2).digest('hex')).toBe(
      SPAN_DICTIONARY_V2_SHA256,
    );
    expect(SPAN_DICTIONARY_V2.subarray(-SPAN_DICTIONARY_V1.length).equals(SPAN_DICTIONARY_V1)).toBe(
      true,
    );
  });

  it('round-trips a block, reads text as it is, and reports what it cannot read', () => {
    const span = JSON.stringify({ s: '1', a: { 'toolscope.input.shape': 'q:string', é: '✓' } });
    const json = `[${span}]`;
    const packed = packSpans([span]);
    expect(packed[0]).toBe(2);
    expect(packed.length).toBeLessThan(Buffer.byteLength(json));
    expect(unpackBlock(packed)).toBe(json);
    // A reader thread hands over a Uint8Array, not a Buffer.
    expect(unpackBlock(new Uint8Array(packed))).toBe(json);
    expect(unpackBlock(json)).toBe(json);
    // The frame refers into the dictionary: without it, it does not decode.
    expect(() => new Decompressor().decompress(packed.subarray(1))).toThrow();
    const damage: string[] = [];
    expect(unpackBlock(Buffer.from([1, 0xff, 0x00, 0x12]), (w) => damage.push(w))).toBeNull();
    // A frame cut short, one whose header names no size, and bytes that are no frame at all.
    expect(unpackBlock(packed.subarray(0, packed.length - 3), (w) => damage.push(w))).toBeNull();
    const sizeless = Buffer.from([2, 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01, 0x00, 0x00]);
    expect(unpackBlock(sizeless, (w) => damage.push(w))).toBeNull();
    expect(unpackBlock(Buffer.from([2, 0xff, 0x00, 0x12]), (w) => damage.push(w))).toBeNull();
    expect(unpackBlock(Buffer.from([9, 1, 2]), (w) => damage.push(w))).toBeNull();
    expect(unpackBlock(42, (w) => damage.push(w))).toBeNull();
    expect(damage).toEqual([
      'a packed span block (codec 1) does not unpack',
      'a packed span block (codec 2) does not unpack',
      'a packed span block (codec 2) does not unpack',
      'a packed span block (codec 2) does not unpack',
      'a span block has an unknown codec (9)',
      'a span block is neither text nor a packed block',
    ]);
  });

  it("checks a frame's content against its checksum, and reads frames written without one", () => {
    const json = `[${JSON.stringify({ s: '1', a: { 'toolscope.input.shape': 'q:string' } })}]`;
    const packed = packSpans([json.slice(1, -1)]);
    // The frame header's descriptor (after the 4-byte magic number): bit 2 is Content_Checksum_flag.
    expect((packed[1 + 4] as number) & 0x04).toBe(0x04);
    // The content intact and only its checksum changed: a reader that did not check it would return the block.
    const damage: string[] = [];
    const badSum = Buffer.from(packed);
    badSum[badSum.length - 1] = (badSum[badSum.length - 1] as number) ^ 0x01;
    expect(unpackBlock(badSum, (w) => damage.push(w))).toBeNull();
    expect(damage).toEqual(['a packed span block (codec 2) does not unpack']);
    // No single-bit flip past the magic number reads back as other spans: without the checksum about half of
    // them did (53,755 of 97,152 over 20 of the bench's blocks, decision 0084).
    let caught = 0;
    for (let i = 1 + 4; i < packed.length; i++)
      for (let bit = 0; bit < 8; bit++) {
        const flipped = Buffer.from(packed);
        flipped[i] = (flipped[i] as number) ^ (1 << bit);
        const read = unpackBlock(flipped, () => {});
        expect(read === null || read === json).toBe(true);
        if (read === null) caught++;
      }
    expect(caught).toBeGreaterThan(0);
    // A frame as collectors wrote them before decision 0084, with no checksum, reads as it did.
    const cctx = new zstd.CCtx();
    const out = Buffer.alloc(zstd.compressBound(json.length));
    const n = cctx.compressUsingCDict(
      out,
      Buffer.from(json),
      new zstd.CDict(SPAN_DICTIONARY_V2, 3),
    );
    expect((out[4] as number) & 0x04).toBe(0);
    expect(unpackBlock(Buffer.concat([Buffer.from([2]), out.subarray(0, n)]))).toBe(json);
  });

  it('packs spans as codec 2 blocks of their joined JSON, however large the block, and reads codec 1', () => {
    const span = (i: number, text: string) => JSON.stringify({ s: String(i), a: { text } });
    const blocks = [
      [span(1, 'plain')],
      [span(1, 'é ✓ 😀 and a lone \ud800'), span(2, '中文'), span(3, '')],
      // Past the 64 KiB scratch, and past the 1 MiB the scratch may grow to.
      Array.from({ length: 40 }, (_, i) => span(i, '✓'.repeat(2_000))),
      Array.from({ length: 30 }, (_, i) => span(i, '😀'.repeat(20_000))),
      // And a small one again, after the scratch grew.
      [span(9, 'after')],
    ];
    for (const spans of blocks) {
      const joined = `[${spans.join(',')}]`;
      const packed = packSpans(spans);
      // Read back through zstd-napi's own dictionary API, not the collector's contexts; the frame names
      // dictionary v2 (a frame over no dictionary would decode there too).
      expect(packed[0]).toBe(2);
      expect(zstd.getDictIDFromFrame(packed.subarray(1))).toBe(V2_ID);
      expect(viaLibrary.decompress(packed.subarray(1)).toString()).toBe(joined);
      // No larger than a deflated block past a frame's own header and checksum (11 and 4 bytes of a 30-byte
      // block here): the tables come from the dictionary (decisions 0080 and 0084 have the sizes).
      expect(packed.length).toBeLessThanOrEqual(codecV1(joined).length + 24);
      expect(unpackBlock(packed)).toBe(joined);
      expect(unpackBlock(codecV1(joined))).toBe(joined);
      // A block written at level 6, as before decision 0038, reads the same.
      expect(unpackBlock(codecV1(joined, 6))).toBe(joined);
    }
  });

  it("packs eight calls' spans smaller than deflate, and one at most 24 bytes over it", () => {
    // Fixed times: a span's digits move its size by a few bytes either way, and callSpan starts at Date.now().
    const T0 = 1_796_000_000_000_000_000n;
    const spans = Array.from({ length: 8 }, (_, i) => {
      const s = callSpan({ trace: 5, span: i + 1, tool: `tool_${i}`, code: 'INVALID_INPUT' });
      const startNs = T0 + BigInt(i) * 1_234_567n;
      return encodeSpan({ ...s, startNs, endNs: startNs + 5_000_000n });
    });
    const size = (block: string[]) => [
      packSpans(block).length,
      codecV1(`[${block.join(',')}]`).length,
    ];
    const [eight, eightDeflated] = size(spans);
    expect(eight).toBeLessThan(eightDeflated as number);
    // A frame has a header raw deflate has not (11-12 bytes) and, since decision 0084, a 4-byte checksum. Over
    // 2,000 start times this span came out 1-17 bytes over deflate's without the checksum, 6 at the median
    // (decision 0080); over a raw-content dictionary, 38 without the checksum.
    const [one, oneDeflated] = size(spans.slice(0, 1));
    expect(one).toBeLessThanOrEqual((oneDeflated as number) + 24);
  });

  it('stores the rest of a re-sent batch whose first span was already stored, unchanged', async () => {
    // The writer then stores a block other than the one packed with the plan, cut out of it (packed-plan.ts).
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-packed-'));
    const s = await openStorage(join(dir, 'resent.db'));
    try {
      const issues = '[{"path":"q","message":"é ✓"}]';
      const [a, b, c] = [
        callSpan({ trace: 3, span: 1, tool: 'tool_1' }),
        callSpan({ trace: 3, span: 2, tool: 'tool_2' }),
        callSpan({ trace: 3, span: 3, tool: 'tool_3', code: 'INVALID_INPUT', issues }),
      ] as [NormalizedSpan, NormalizedSpan, NormalizedSpan];
      expect((await writeSpans(s, [a])).inserted).toBe(1);
      expect(await writeSpans(s, [a, b, c])).toMatchObject({ inserted: 2, duplicates: 1 });
      const read = await s.trace(traceIdOf(3));
      expect(read?.map((x) => [x.spanId, x.name, x.attributes])).toEqual(
        [a, b, c].map((x) => [x.spanId, x.name, x.attributes]),
      );
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!PG_URL)(
    'PostgreSQL v5 → v6: a block stored as text before stays readable beside packed ones',
    () => {
      const old = [{ s: 'ab'.repeat(8), p: null, n: 'execute_tool old', k: 1, st: '1', en: '2' }];
      return upgradedPostgres(
        5,
        [
          `INSERT INTO traces (trace_id, first_ns) VALUES ('${traceIdOf(7)}', 1)`,
          `INSERT INTO resources (digest, attributes) VALUES ('old', '{"service.name":"old"}')`,
          `INSERT INTO span_blocks (trace_seq, resource_id, span_ids, spans)
           SELECT 1, id, '${'ab'.repeat(8)}', '${JSON.stringify(old)}' FROM resources`,
        ],
        async (s) => {
          await writeSpans(s, [callSpan({ trace: 7, span: 2, tool: 'packed_tool' })]);
          const spans = await s.trace(traceIdOf(7));
          expect(spans?.map((x) => [x.name, x.resource['service.name']])).toEqual([
            ['execute_tool old', 'old'],
            ['execute_tool packed_tool', 'conformance'],
          ]);
        },
      );
    },
  );

  it('stores a trace packed on SQLite, and still reads blocks older releases stored as text and deflated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-packed-'));
    const path = join(dir, 'packed.db');
    try {
      let s = await openStorage(path);
      await writeSpans(s, [callSpan({ trace: 1, span: 1, tool: 'packed_tool' })]);
      await s.close();
      const db = new Database(path);
      const stored = db.prepare('SELECT packed FROM span_blocks').pluck().get() as Buffer;
      expect(Buffer.isBuffer(stored)).toBe(true);
      expect(stored[0]).toBe(2);
      // A block as the previous release wrote it: the JSON text of its spans, for a second trace.
      const old = [{ s: 'ab'.repeat(8), p: null, n: 'execute_tool old', k: 1, st: '1', en: '2' }];
      db.prepare('INSERT INTO traces (trace_id, first_ns) VALUES (?, 1)').run(traceIdOf(2));
      db.prepare(
        'INSERT INTO span_blocks (trace_seq, resource_id, span_ids, spans) SELECT seq, 1, ?, ? FROM traces WHERE trace_id = ?',
      ).run('ab'.repeat(8), JSON.stringify(old), traceIdOf(2));
      // And as releases before decision 0080 packed it: codec 1, deflated, for a third.
      const deflated = [{ ...old[0], s: 'cd'.repeat(8), n: 'execute_tool deflated' }];
      db.prepare('INSERT INTO traces (trace_id, first_ns) VALUES (?, 1)').run(traceIdOf(3));
      db.prepare(
        "INSERT INTO span_blocks (trace_seq, resource_id, span_ids, spans, packed) SELECT seq, 1, ?, '', ? FROM traces WHERE trace_id = ?",
      ).run('cd'.repeat(8), codecV1(JSON.stringify(deflated)), traceIdOf(3));
      db.close();
      s = await openStorage(path);
      try {
        const packed = await s.trace(traceIdOf(1));
        expect(packed?.map((x) => x.name)).toEqual(['execute_tool packed_tool']);
        expect(packed?.[0]?.attributes['gen_ai.tool.name']).toBe('packed_tool');
        const text = await s.trace(traceIdOf(2));
        expect(text?.map((x) => x.name)).toEqual(['execute_tool old']);
        const v1 = await s.trace(traceIdOf(3));
        expect(v1?.map((x) => x.name)).toEqual(['execute_tool deflated']);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
