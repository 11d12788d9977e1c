// Which retry-loop scopes a batch must re-evaluate, and how: the backend-neutral half of stateless loop
// detection. A writer reports each new, non-client tool call with an input hash; a trace that existed before the
// batch, or a conversation whose key filter (key-bloom.ts) may hold one of the batch's keys, has its stored calls
// with those keys re-read inside the batch's transaction, and the flags of each (scope, tool, input hash) group
// are replaced by what detectLoops says of the whole group. Nothing is kept between batches.

import {
  detectLoops,
  type LoopCall,
  type LoopFlag,
  type LoopThresholds,
} from '../detectors/retry-loops.js';
import { CODE_KEY_SQL } from './sql/code-sql.js';
import { big, num, type Row, text, textOrNull } from './sql/db.js';

export type ScopeKind = 'trace' | 'conversation';

/** One (tool, input hash) group of a scope to re-evaluate. */
export type LoopGroup = { tool: string; inputHash: string };

export type ScopeCheck = {
  scope: ScopeKind;
  /** Trace id or conversation id. */
  key: string;
  groups: LoopGroup[];
};

/** Columns the re-read selects, in the names `loopCallOf` reads. */
export const LOOP_CALL_COLUMNS = `trace_id, span_id, tool, input_hash, start_ns, NULLIF(${CODE_KEY_SQL}, '') AS code,
  retryable, partial_effect, effect, idempotency_key_hash`;

/** Most calls of a conversation one re-evaluation reads (newest first). */
export const CONVERSATION_CALLS = 2000;

export const groupKey = (tool: string, inputHash: string) => `${tool}\u0000${inputHash}`;

export function loopCallOf(r: Row): LoopCall {
  const retryable =
    r.retryable === null || r.retryable === undefined ? null : num(r.retryable) === 1;
  return {
    traceId: text(r.trace_id),
    spanId: text(r.span_id),
    tool: text(r.tool),
    inputHash: textOrNull(r.input_hash),
    startNs: big(r.start_ns),
    code: textOrNull(r.code),
    retryable,
    partialEffect: num(r.partial_effect) === 1,
    effect: textOrNull(r.effect),
    idempotencyKeyHash: textOrNull(r.idempotency_key_hash),
  };
}

/** A group's flags and the values a flags row stores for each. */
export type GroupFlags = { group: LoopGroup; flags: LoopFlag[] };

/**
 * The flags of each checked group from the calls re-read for its scope. A conversation keeps only loops that
 * cross traces: a loop inside one trace is flagged on the trace.
 */
export function evaluateScope(
  check: ScopeCheck,
  calls: LoopCall[],
  thresholds: LoopThresholds,
): GroupFlags[] {
  const byGroup = new Map<string, LoopCall[]>();
  for (const c of calls) {
    if (c.inputHash === null) continue;
    const k = groupKey(c.tool, c.inputHash);
    const list = byGroup.get(k);
    if (list) list.push(c);
    else byGroup.set(k, [c]);
  }
  const out: GroupFlags[] = [];
  for (const group of check.groups) {
    const members = byGroup.get(groupKey(group.tool, group.inputHash)) ?? [];
    // One call makes no loop, and a group only grows, so it has no stored flags to clear either.
    if (members.length < 2) continue;
    let flags = detectLoops(members, thresholds);
    if (check.scope === 'conversation') flags = flags.filter((f) => f.traceIds.length > 1);
    out.push({ group, flags });
  }
  return out;
}

/** Columns of a stored loop flag, in the order FLAG_COLUMNS names them. */
export const FLAG_COLUMNS = `kind, severity, tool, scope, scope_key, trace_id, conversation_id, count, first_ns, last_ns,
  summary, evidence, input_hash`;

/** The values of a flags row for one flag of a checked group (nanosecond times as decimal strings). */
export function flagRow(check: ScopeCheck, group: LoopGroup, f: LoopFlag) {
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
    JSON.stringify({ traceIds: f.traceIds, spanIds: f.spanIds, inputHash: f.inputHash }),
    group.inputHash,
  ];
}
