// A store written by an earlier release's own code (test/fixtures/release-db, made by make.ts there) opened by
// today's: it reads back exactly what that release read from it, and new spans land beside the old ones. The
// v9 fixture keeps span blocks as JSON text; today's writer packs them (decision 0011), so one trace ends up
// with blocks of both kinds. Both fixtures have the wide tool_calls table, which v11 rewrites into narrowed rows
// (decision 0013): the calls page read before and after must be the same.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { CallsResponse } from '../src/api/schemas.js';
import { openStorage } from '../src/index.js';
import { callSpan, traceIdOf } from './conformance/spans.js';
import { readCalls, readConversation, readTrace } from './read-view.js';
import { writeSpans } from './write-spans.js';

const FIXTURES = new URL('./fixtures/release-db/', import.meta.url);
const T0 = 1_796_000_000_000_000_000n;

/** The fixture's expected reads, bigints as make.ts wrote them ("123n"). */
function expectedOf(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`${name}.expected.json`, FIXTURES), 'utf8'), (_k, v) =>
    typeof v === 'string' && /^\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v,
  );
}

/** Each fixture, with the kinds of its span blocks after the test's write (spans' type, packed's type: count). */
const RELEASES = [
  {
    name: 'v9-text-blocks',
    title: 'v9 (span blocks as JSON text)',
    kinds: [
      { kind: 'text blob', n: 2 },
      { kind: 'text null', n: 3 },
    ],
    keys: [{ kind: 'blob blob blob', n: 6 }],
  },
  {
    name: 'v10-packed-blocks',
    title: 'v10 (packed span blocks, wide call rows)',
    kinds: [{ kind: 'text blob', n: 6 }],
    // The call whose schema hash and input hash are not lowercase 16-hex keeps them as text.
    keys: [
      { kind: 'blob blob blob', n: 6 },
      { kind: 'blob text text', n: 1 },
    ],
  },
];

/**
 * A call page as that release read it: the fields added since (the result hash, the proxy mark, the client's
 * version, a logical call's facts) are null, false and one leg for its rows, which this checks, and are then left
 * out of the comparison.
 */
const ONE_LEG = { legs: 1, inputWaitMs: 0, task: null, parts: 1, complete: true };

function withoutLaterFields(page: CallsResponse): unknown {
  return {
    ...page,
    calls: page.calls.map(
      ({ outputHash, proxy, clientVersion, legs, inputWaitMs, task, parts, complete, ...rest }) => {
        expect([outputHash, proxy, clientVersion]).toEqual([null, false, null]);
        // Each row stored before logical calls were read is a whole call of one leg.
        expect({ legs, inputWaitMs, task, parts, complete }).toEqual(ONE_LEG);
        return rest;
      },
    ),
  };
}

describe('a store written by an earlier release', () => {
  it.each(RELEASES)(
    '$title: reads as that release read it, and takes new spans beside',
    async ({ name, kinds: expectedKinds, keys: expectedKeys }) => {
      const dir = mkdtempSync(join(tmpdir(), 'toolscope-release-'));
      const path = join(dir, `${name}.db`);
      writeFileSync(path, gunzipSync(readFileSync(new URL(`${name}.db.gz`, FIXTURES))));
      const expected = expectedOf(name) as {
        traces: Record<string, unknown>;
        calls: unknown;
        conversation: unknown;
      };
      const readAll = async (s: Awaited<ReturnType<typeof openStorage>>) => ({
        traces: Object.fromEntries(
          await Promise.all(
            [1, 2].map(async (t) => [traceIdOf(t), await readTrace(s, traceIdOf(t))]),
          ),
        ),
        calls: withoutLaterFields(
          await readCalls(s, { sinceNs: 0n, untilNs: T0 * 2n, limit: 100 }),
        ),
        conversation: await readConversation(s, 'conv-fixture'),
      });
      try {
        let s = await openStorage(path);
        try {
          expect(await readAll(s)).toEqual(expected);
          // A late span of the old trace, and a new trace: both packed.
          const late = {
            ...callSpan({ trace: 1, span: 4, parent: 9, tool: 'get_order' }),
            startNs: T0 + 30_000_000n,
            endNs: T0 + 31_000_000n,
          };
          await writeSpans(s, [late, callSpan({ trace: 3, span: 1, tool: 'search_docs' })]);
          const trace1 = await readTrace(s, traceIdOf(1));
          expect(trace1?.map((x) => x.spanId)).toEqual([
            ...(expected.traces[traceIdOf(1)] as { spanId: string }[]).map((x) => x.spanId),
            late.spanId,
          ]);
          expect(trace1?.at(-1)?.attributes).toEqual(late.attributes);
        } finally {
          await s.close();
        }
        const db = new Database(path, { readonly: true });
        const kinds = db
          .prepare(
            "SELECT typeof(spans) || ' ' || typeof(packed) AS kind, COUNT(*) AS n FROM span_blocks GROUP BY 1 ORDER BY 1",
          )
          .all();
        const keys = db
          .prepare(
            `SELECT typeof(span_id) || ' ' || typeof(schema_hash) || ' ' || typeof(input_hash) AS kind, COUNT(*) AS n
             FROM tool_call_rows GROUP BY 1 ORDER BY 1`,
          )
          .all();
        db.close();
        expect(kinds).toEqual(expectedKinds);
        expect(keys).toEqual(expectedKeys);
        // Reopened, the old reads are unchanged but for the late span.
        s = await openStorage(path);
        try {
          const again = await readAll(s);
          expect(again.traces[traceIdOf(2)]).toEqual(expected.traces[traceIdOf(2)]);
          expect((again.traces[traceIdOf(1)] as unknown[]).slice(0, -1)).toEqual(
            expected.traces[traceIdOf(1)],
          );
        } finally {
          await s.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
