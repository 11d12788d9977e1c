// RecoveryReader (recovery-reader.ts) over ReadDb, for both SQL backends: the window's failed calls (counted
// once), the counted calls of their conversations and traces in start order, and the envelope message each
// of the newest failures carried, read from its span's captured result.
import { callContentOf } from '../../calls/call-content.js';
import { failureMessageOf } from '../../calls/failure-message.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import type { RecoveryRead, RecoveryReader, ScopeCallRecord } from '../recovery-reader.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { big, num, type ReadDb, type Row, type SqlValue, text, textOrNull } from './db.js';
import { spansOf } from './trace-reader.js';

const COUNTED = sideWhere('any');
/** Scopes per query, and most rows one query takes. */
const CHUNK = 100;
const ROWS = 200_000;
/** Traces whose spans are read for the messages of the newest failures. */
const MESSAGE_TRACES = 200;

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const COLUMNS = `trace_id, span_id, tool, input_hash, NULLIF(${CODE_KEY_SQL}, '') AS code, call_id, start_ns,
  conversation_id, trace_seq`;

function callOf(r: Row): ScopeCallRecord {
  return {
    traceId: text(r.trace_id),
    spanId: text(r.span_id),
    tool: text(r.tool),
    inputHash: textOrNull(r.input_hash),
    code: textOrNull(r.code),
    callId: textOrNull(r.call_id),
    startNs: big(r.start_ns),
  };
}

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

export class SqlRecoveryReader implements RecoveryReader {
  readonly #db: ReadDb;

  constructor(db: ReadDb) {
    this.#db = db;
  }

  async recoveryScopes(
    sinceNs: bigint,
    untilNs: bigint,
    tool: string | undefined,
    limit: number,
  ): Promise<RecoveryRead> {
    const where = `start_ns >= ? AND start_ns < ? AND is_error = 1 AND ${COUNTED}${tool === undefined ? '' : ` AND ${TOOL_IS}`}`;
    const args: SqlValue[] = tool === undefined ? [sinceNs, untilNs] : [sinceNs, untilNs, tool];
    const [total] = await this.#db.all(`SELECT COUNT(*) AS n FROM tool_calls WHERE ${where}`, args);
    const failed = await this.#db.all(
      `SELECT span_id, trace_seq, conversation_id, start_ns FROM tool_calls WHERE ${where}
        ORDER BY start_ns DESC, id DESC LIMIT ?`,
      [...args, limit],
    );
    // No call before the oldest counted failure can come next after one: the scopes are read from there on.
    const fromNs = failed.length > 0 ? big(failed[failed.length - 1]?.start_ns) : untilNs;
    const conversations = new Set<string>();
    const traces = new Set<bigint>();
    for (const r of failed) {
      const c = textOrNull(r.conversation_id);
      if (c !== null) conversations.add(c);
      else traces.add(big(r.trace_seq));
    }
    const scopes = new Map<string, ScopeCallRecord[]>();
    const add = (key: string, r: Row) => {
      const list = scopes.get(key);
      if (list) list.push(callOf(r));
      else scopes.set(key, [callOf(r)]);
    };
    for (const ids of chunks([...conversations])) {
      const rows = await this.#db.all(
        `SELECT ${COLUMNS} FROM tool_calls
          WHERE ${this.#db.inRows('trace_seq', `SELECT trace_seq FROM conversation_traces WHERE conversation_id IN (${marks(ids.length)})`)}
            AND conversation_id IN (${marks(ids.length)}) AND start_ns >= ? AND ${COUNTED}
          ORDER BY start_ns, id LIMIT ${ROWS}`,
        [...ids, ...ids, fromNs],
      );
      for (const r of rows) add(`c:${text(r.conversation_id)}`, r);
    }
    for (const seqs of chunks([...traces])) {
      const rows = await this.#db.all(
        `SELECT ${COLUMNS} FROM tool_calls
          WHERE trace_seq IN (${marks(seqs.length)}) AND conversation_id IS NULL AND start_ns >= ?
            AND ${COUNTED}
          ORDER BY start_ns, id LIMIT ${ROWS}`,
        [...seqs, fromNs],
      );
      for (const r of rows) add(`t:${big(r.trace_seq)}`, r);
    }
    const counted = failed.map((r) => text(r.span_id));
    return {
      failures: num(total?.n),
      counted,
      scopes: [...scopes.values()],
      messages: await this.#messages(failed),
    };
  }

  /** The envelope messages of the newest failures, from their spans' captured results. */
  async #messages(failed: Row[]): Promise<Record<string, string>> {
    const seqs = [...new Set(failed.map((r) => big(r.trace_seq)))].slice(0, MESSAGE_TRACES);
    const wanted = new Set(failed.map((r) => text(r.span_id)));
    const out: Record<string, string> = {};
    for (const span of await spansOf(this.#db, seqs)) {
      if (!wanted.has(span.spanId)) continue;
      const content = callContentOf({
        attributes: span.attributes,
        name: span.name,
        scopeName: span.scopeName,
      });
      const message = failureMessageOf(content);
      if (message !== null) out[span.spanId] = message;
    }
    return out;
  }
}
