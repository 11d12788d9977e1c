// The loop scopes' side of storage, written once for both writers (`?` placeholders; PostgreSQL numbers
// them): a scope's call sequence read back inside the batch's transaction, and the stored loop flags replaced.
// The detection stage (storage/contract.ts LoopDetection) decides which scopes and which flags.
import { firstIssuePath } from '../../calls/issues.js';
import { logicalFromJson } from '../../calls/logical-call.js';
import { sideWhere } from '../call-side.js';
import type {
  CallSequence,
  LoopFlagRecord,
  LoopScopeRef,
  SequenceCall,
  SequenceContext,
  SequenceModelCall,
} from '../contract.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { big, num, numOrNull, type Row, type SqlValue, text, textOrNull } from './db.js';
import { inRows, type SqlDialect } from './in-rows.js';

/** Most calls of a scope one read takes (the newest); flags of older calls are kept as they are. */
export const SCOPE_CALLS = 2000;
/** Most model calls of a scope one read takes. */
const SCOPE_MODEL_CALLS = 10_000;

/** The rows loop detection counts: each call once (call-side.ts). */
const COUNTED = sideWhere('any');

/** The columns a scope read takes, in this order: SQLite hands them over as arrays (one object less per row). */
const SCOPE_CALL_COLUMNS = [
  'trace_id',
  'span_id',
  'tool',
  'input_hash',
  'input_shape',
  'output_hash',
  'start_ns',
  'duration_ms',
  `NULLIF(${CODE_KEY_SQL}, '') AS code`,
  'retryable',
  'partial_effect',
  'effect',
  'idempotency_key_hash',
  'issues',
  'result_tokens',
  'logical',
] as const;
const CALL_COLUMNS = SCOPE_CALL_COLUMNS.join(', ');
/** Each column's name in an object row (PostgreSQL's). */
const COLUMN_NAMES = SCOPE_CALL_COLUMNS.map((c) => c.split(' AS ').at(-1) as string);

/** The rows of a conversation's traces (the conversation id as `?`). */
function ofConversation(dialect: SqlDialect): string {
  return inRows(
    dialect,
    'trace_seq',
    'SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?',
  );
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * A scope's newest counted calls, newest first, of `tools` tools when that is not 0: trace_seq, or the
 * conversation id twice; then the tools' names.
 */
export function scopeCallsSql(
  scope: LoopScopeRef['scope'],
  tools = 0,
  dialect: SqlDialect,
): string {
  const where =
    scope === 'trace' ? 'trace_seq = ?' : `${ofConversation(dialect)} AND conversation_id = ?`;
  const ofTools =
    tools > 0 ? ` AND tool_id IN (SELECT id FROM strings WHERE value IN (${marks(tools)}))` : '';
  return `SELECT ${CALL_COLUMNS} FROM tool_calls WHERE ${where}${ofTools} AND ${COUNTED}
    ORDER BY start_ns DESC, id DESC LIMIT ${SCOPE_CALLS}`;
}

/** The values scopeCallsSql takes for a check (`seq` is a trace check's row number). */
export function scopeCallsArgs(check: LoopScopeRef, seq: number): SqlValue[] {
  const scope = check.scope === 'trace' ? [seq] : [check.key, check.key];
  return [...scope, ...(check.tools ?? [])];
}

/** The model calls of the scope's traces from a time on, oldest first: trace_seq, or the conversation id; then the time. */
export function scopeModelCallsSql(scope: LoopScopeRef['scope'], dialect: SqlDialect): string {
  const where = scope === 'trace' ? 'trace_seq = ?' : ofConversation(dialect);
  return `SELECT start_ns, end_ns, input_tokens, output_tokens FROM model_calls
    WHERE ${where} AND start_ns >= ? ORDER BY start_ns LIMIT ${SCOPE_MODEL_CALLS}`;
}

/** A call from a row of scopeCallsSql's columns, in their order. */
function sequenceCallOf(r: readonly unknown[]): SequenceCall {
  const startNs = big(r[6]);
  // A task's polls and interval from the row's logical facts: null for almost every row, nothing to parse.
  const task = r[15] === null || r[15] === undefined ? null : logicalFromJson(r[15])?.task;
  return {
    traceId: text(r[0]),
    spanId: text(r[1]),
    tool: text(r[2]),
    inputHash: textOrNull(r[3]),
    inputShape: textOrNull(r[4]),
    outputHash: textOrNull(r[5]),
    startNs,
    endNs: startNs + BigInt(Math.round(num(r[7]) * 1e6)),
    code: textOrNull(r[8]),
    retryable: r[9] === null || r[9] === undefined ? null : num(r[9]) === 1,
    partialEffect: num(r[10]) === 1,
    effect: textOrNull(r[11]),
    idempotencyKeyHash: textOrNull(r[12]),
    firstIssuePath: firstIssuePath(r[13]),
    resultTokens: numOrNull(r[14]),
    taskPolls: task ? task.polls : null,
    pollIntervalMs: task ? task.pollIntervalMs : null,
  };
}

function modelCallOf(r: Row): SequenceModelCall {
  return {
    startNs: big(r.start_ns),
    endNs: big(r.end_ns),
    tokens: num(r.input_tokens) + num(r.output_tokens),
  };
}

/** The sequence from the rows of scopeCallsSql (newest first) as arrays of its columns. */
export function sequenceOfArrays(callRows: readonly (readonly unknown[])[]): CallSequence {
  const calls = callRows.map(sequenceCallOf).reverse();
  return { calls, fromNs: callRows.length >= SCOPE_CALLS ? (calls[0]?.startNs ?? null) : null };
}

/** The sequence from the rows of scopeCallsSql (newest first) as objects. */
export const sequenceOf = (callRows: readonly Row[]): CallSequence =>
  sequenceOfArrays(callRows.map((r) => COLUMN_NAMES.map((c) => r[c])));

/** The context from the rows of scopeModelCallsSql and keptFlagsSql. */
export function contextOf(modelRows: Row[], keptRows: Row[]): SequenceContext {
  return { modelCalls: modelRows.map(modelCallOf), known: knownOf(keptRows) };
}

/** Where the model-call read of a sequence starts: its oldest call. */
export const modelCallsFrom = (s: CallSequence): bigint => s.calls[0]?.startNs ?? 0n;

/** Deletes the flags a check replaces: its scope's from a time on, of its kinds and tools when it names them. */
export function deleteScopeFlagsSql(check: LoopScopeRef): string {
  const kinds = check.kinds ? ` AND kind IN (${marks(check.kinds.length)})` : '';
  const tools = check.tools ? ` AND tool IN (${marks(check.tools.length)})` : '';
  return `DELETE FROM flags WHERE scope = ? AND scope_key = ? AND first_ns >= ?${kinds}${tools}`;
}

export function deleteScopeFlagsArgs(check: LoopScopeRef, fromNs: bigint | null): SqlValue[] {
  return [check.scope, check.key, fromNs ?? 0n, ...(check.kinds ?? []), ...(check.tools ?? [])];
}

/** The stored flags of a check's `keep` kinds (none is read when it keeps none). */
export const keptFlagsSql = (kinds: number) =>
  `SELECT kind, evidence FROM flags WHERE scope = ? AND scope_key = ? AND kind IN (${marks(kinds)})`;

/** The kinds and span ids of kept flags as read (a damaged evidence reads as no calls). */
function knownOf(rows: Row[]): SequenceContext['known'] {
  return rows.map((r) => {
    let spanIds: string[] = [];
    try {
      const ev: unknown = JSON.parse(text(r.evidence));
      const ids = typeof ev === 'object' && ev !== null ? Reflect.get(ev, 'spanIds') : undefined;
      if (Array.isArray(ids)) spanIds = ids.filter((x): x is string => typeof x === 'string');
    } catch {
      spanIds = [];
    }
    return { kind: text(r.kind), spanIds };
  });
}

const FLAG_COLUMNS = `kind, severity, tool, scope, scope_key, trace_id, conversation_id, count, first_ns, last_ns,
  summary, evidence, input_hash`;

export const INSERT_FLAG_SQL = `INSERT INTO flags (${FLAG_COLUMNS}) VALUES (${FLAG_COLUMNS.split(
  ',',
)
  .map(() => '?')
  .join(', ')})`;

/** The values of a flags row (nanosecond times as decimal strings, which both drivers take for integers). */
export function flagRowOf(check: LoopScopeRef, f: LoopFlagRecord): SqlValue[] {
  return [
    f.kind,
    f.severity,
    f.tool,
    check.scope,
    check.key,
    check.scope === 'trace' ? check.key : null,
    check.scope === 'conversation' ? check.key : null,
    f.count,
    f.firstNs.toString(),
    f.lastNs.toString(),
    f.summary,
    JSON.stringify({
      traceIds: f.traceIds,
      spanIds: f.spanIds,
      inputHash: f.inputHash,
      ...f.evidence,
    }),
    f.inputHash,
  ];
}
