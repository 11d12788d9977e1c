// The writer keeps the row numbers and span ids of its most recent traces only (memory-shares.ts sizes how many
// under a memory limit): a trace it no longer keeps is found by its index, so spans sent again (an exporter's
// retry) after it was let go are counted as duplicates and stored once, and new spans join its row.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../../test/conformance/spans.js';
import { createLoopDetection } from '../../detection/index.js';
import { processBatch } from '../../process/batch.js';
import { batchLinks } from '../../process/links.js';
import { mergeBatches } from '../../process/merge.js';
import { batchRows } from '../../process/rows.js';
import { BlockWriter } from './block-writer.js';
import { migrate } from './schema.js';

describe('a writer that keeps two recent traces', () => {
  it('stores spans sent again after their trace was let go once, and adds new ones to its row', () => {
    const db = new Database(':memory:');
    migrate(db);
    const stages = {
      links: batchLinks,
      rows: batchRows,
      merge: mergeBatches,
      loops: createLoopDetection(),
    };
    const writer = new BlockWriter(db, stages, 2);
    const first = [callSpan({ trace: 1, span: 1 }), callSpan({ trace: 1, span: 2 })];
    expect(writer.apply(processBatch(first))).toMatchObject({ inserted: 2, duplicates: 0 });
    // Three more traces: the writer lets trace 1 go (its caches start over past two).
    for (const trace of [2, 3, 4]) writer.apply(processBatch([callSpan({ trace, span: 1 })]));
    expect(writer.apply(processBatch(first))).toMatchObject({ inserted: 0, duplicates: 2 });
    expect(
      writer.apply(
        processBatch([callSpan({ trace: 1, span: 2 }), callSpan({ trace: 1, span: 3 })]),
      ),
    ).toMatchObject({ inserted: 1, duplicates: 1 });
    const count = (sql: string) => db.prepare(sql).pluck().get();
    expect(count('SELECT COUNT(*) FROM traces')).toBe(4);
    expect(count('SELECT COUNT(*) FROM tool_call_rows')).toBe(6);
    db.close();
  });
});
