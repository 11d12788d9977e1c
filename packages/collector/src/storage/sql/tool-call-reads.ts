// What one tool's calls in a window show, read from tool_calls through its (tool, start_ns) index: the calls
// failing with a code, the calls whose result crossed a size, a version's first and newest call, and who
// called it. Each is asked only for the few tools a flag is about.

import { KIND_CLIENT } from '../../calls/sides.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import type {
  CallRef,
  FailingToolCall,
  FailingToolCalls,
  ResultCrossing,
  ResultCrossings,
  ToolUsage,
  VersionCalls,
} from '../read-records.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { big, num, type ReadDb, type Row, text, textOrNull } from './db.js';

const LISTED = 20;
const COUNT_CAP = 100_000;

const FAILING_NEWEST = 500;

const failingCallOf = (r: Row): FailingToolCall => ({
  traceId: text(r.trace_id),
  spanId: text(r.span_id),
  conversationId: textOrNull(r.conversation_id),
  inputHash: textOrNull(r.input_hash),
  startNs: big(r.start_ns),
});

/**
 * The calls of `tool` failing with `code` in the window, counted once each: the newest 500 and the first,
 * through the index. A call's conversation is its own, else that of its trace (a span may not carry it).
 */
export async function failingCalls(
  db: ReadDb,
  tool: string,
  code: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<FailingToolCalls> {
  const select = `SELECT trace_id, span_id, input_hash, start_ns, COALESCE(conversation_id,
      (SELECT MIN(ct.conversation_id) FROM conversation_traces ct WHERE ct.trace_seq = tool_calls.trace_seq))
      AS conversation_id FROM tool_calls
     WHERE ${TOOL_IS} AND start_ns >= ? AND start_ns < ? AND ${CODE_KEY_SQL} = ? AND ${sideWhere('any')}`;
  const args = [tool, sinceNs, untilNs, code];
  const [newest, first] = await Promise.all([
    db.all(`${select} ORDER BY start_ns DESC LIMIT ${FAILING_NEWEST}`, args),
    db.all(`${select} ORDER BY start_ns LIMIT 1`, args),
  ]);
  return { newest: newest.map(failingCallOf), first: first[0] ? failingCallOf(first[0]) : null };
}

/**
 * The calls whose result took more than `tokens`, newest first through the index: when a tool's p95 is over
 * the size, one call in twenty crosses, so the walk stops early.
 */
export async function resultCrossings(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
  tokens: number,
): Promise<ResultCrossings | null> {
  const where = `${TOOL_IS} AND start_ns >= ? AND start_ns < ? AND result_tokens > ? AND ${sideWhere('any')}`;
  const args = [tool, sinceNs, untilNs, tokens];
  const newest = await db.all(
    `SELECT trace_id, span_id, version, result_tokens, start_ns FROM tool_calls WHERE ${where}
      ORDER BY start_ns DESC LIMIT ${LISTED}`,
    args,
  );
  if (newest.length === 0) return null;
  const first = await db.all(
    `SELECT trace_id, span_id, version, result_tokens, start_ns FROM tool_calls WHERE ${where}
      ORDER BY start_ns LIMIT 1`,
    args,
  );
  const counted = await db.all(
    `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM tool_calls WHERE ${where} LIMIT ${COUNT_CAP}) AS crossed`,
    args,
  );
  const calls = newest.map(crossingOf);
  return {
    calls,
    first: first[0] ? crossingOf(first[0]) : (calls.at(-1) as ResultCrossing),
    count: num(counted[0]?.n),
  };
}

const crossingOf = (r: Row): ResultCrossing => ({
  traceId: text(r.trace_id),
  spanId: text(r.span_id),
  version: textOrNull(r.version),
  tokens: num(r.result_tokens),
  startNs: big(r.start_ns),
});

const callRefOf = (r: Row): CallRef => ({
  startNs: big(r.start_ns),
  traceId: text(r.trace_id),
  spanId: text(r.span_id),
});

/**
 * The first and newest call of one version of a tool (null: its calls without a version; undefined: of any
 * version).
 */
export async function versionCalls(
  db: ReadDb,
  tool: string,
  version: string | null | undefined,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<VersionCalls> {
  const which =
    version === undefined ? '' : version === null ? ' AND version IS NULL' : ' AND version = ?';
  const where = `${TOOL_IS}${which} AND start_ns >= ? AND start_ns < ?`;
  const args =
    typeof version === 'string' ? [tool, version, sinceNs, untilNs] : [tool, sinceNs, untilNs];
  const select = `SELECT start_ns, trace_id, span_id FROM tool_calls WHERE ${where}`;
  const [first] = await db.all(`${select} ORDER BY start_ns LIMIT 1`, args);
  const [last] = await db.all(`${select} ORDER BY start_ns DESC LIMIT 1`, args);
  return { first: first ? callRefOf(first) : null, newest: last ? callRefOf(last) : null };
}

/** Who called a tool in the window: services per side, conversations, clients, traces. */
export async function toolUsage(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ToolUsage> {
  const rows = await db.all(
    `SELECT service, kind, conversation_id, client_name, MAX(trace_id) AS trace_id, COUNT(*) AS n,
            SUM(CASE WHEN ${sideWhere('any')} THEN 1 ELSE 0 END) AS counted,
            MIN(start_ns) AS first_ns, MAX(start_ns) AS last_ns
       FROM tool_calls WHERE ${TOOL_IS} AND start_ns >= ? AND start_ns < ?
      GROUP BY service, kind, conversation_id, client_name ORDER BY n DESC LIMIT 1000`,
    [tool, sinceNs, untilNs],
  );
  const clientServices = new Set<string>();
  const serverServices = new Set<string>();
  const conversations = new Set<string>();
  const clients = new Set<string>();
  const traceIds = new Set<string>();
  let calls = 0;
  let firstNs = 0n;
  let lastNs = 0n;
  for (const r of rows) {
    const service = text(r.service) || 'unknown_service';
    (num(r.kind) === KIND_CLIENT ? clientServices : serverServices).add(service);
    if (r.conversation_id) conversations.add(text(r.conversation_id));
    if (r.client_name) clients.add(text(r.client_name));
    traceIds.add(text(r.trace_id));
    calls += num(r.counted);
    const f = big(r.first_ns);
    const l = big(r.last_ns);
    if (firstNs === 0n || f < firstNs) firstNs = f;
    if (l > lastNs) lastNs = l;
  }
  return {
    calls,
    firstNs,
    lastNs,
    clientServices: [...clientServices],
    serverServices: [...serverServices],
    conversations: [...conversations],
    clients: [...clients],
    traceIds: [...traceIds],
  };
}
