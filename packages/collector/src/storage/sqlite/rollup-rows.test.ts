// The writer keeps the rollup rows it wrote (rollup-rows.ts): a batch whose transaction rolls back after its
// rollups were added must leave neither the file nor what the writer keeps counting its calls.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../../test/conformance/spans.js';
import { createLoopDetection } from '../../detection/index.js';
import { processBatch } from '../../process/batch.js';
import { batchLinks } from '../../process/links.js';
import { mergeBatches } from '../../process/merge.js';
import { batchRows } from '../../process/rows.js';
import type { LoopDetection } from '../contract.js';
import { BlockWriter } from './block-writer.js';
import { migrate } from './schema.js';

describe('the rollup rows a writer keeps', () => {
  it('forget a batch that rolled back after its rollups were added', () => {
    const db = new Database(':memory:');
    migrate(db);
    let fail = false;
    const real = createLoopDetection();
    // The loop stage runs after the rollups in the transaction: failing there rolls back rows already upserted.
    const loops: LoopDetection = {
      forBatch: (calls) => {
        if (fail) throw new Error('the stage failed');
        return real.forBatch(calls);
      },
    };
    const writer = new BlockWriter(db, {
      links: batchLinks,
      rows: batchRows,
      merge: mergeBatches,
      loops,
    });
    const minuteCalls = () =>
      db.prepare("SELECT SUM(calls) FROM tool_minutes WHERE side = 'server'").pluck().get();
    writer.apply(processBatch([callSpan({ trace: 1, span: 1 }), callSpan({ trace: 1, span: 2 })]));
    expect(minuteCalls()).toBe(2);
    fail = true;
    expect(() => writer.apply(processBatch([callSpan({ trace: 2, span: 1 })]))).toThrow(
      'the stage failed',
    );
    expect(minuteCalls()).toBe(2);
    fail = false;
    writer.apply(processBatch([callSpan({ trace: 3, span: 1 })]));
    expect(minuteCalls()).toBe(3);
    db.close();
  });
});
