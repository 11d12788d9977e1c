// A tool call's values (write-plan.ts) as a row of SQLite's narrowed table (call-layout.ts): hex keys to
// bytes, repeated strings to ids. Runs on the writer thread, the only writer of the file.
import type Database from 'better-sqlite3';
import type { CallValues } from '../write-plan.js';

const HEX16 = /^[0-9a-f]{16}$/;

/**
 * A span id or 16-hex hash as its 8 bytes; any other value (another dialect's hash, say) stays as it is, text,
 * which the view tells apart by its type. The view reads a BLOB back with lower(hex(…)), so only lowercase hex
 * is converted: what is read is exactly what was written.
 */
export function keyBytes(value: string | null): Buffer | string | null {
  return value !== null && HEX16.test(value) ? Buffer.from(value, 'hex') : value;
}

/** `tool_call_rows` columns in the order `callRow` gives their values. */
export const CALL_ROW_COLUMNS = `trace_seq, span_id, parent_span_id, tool_id, version, schema_hash, attempt, code,
  error_type, reason, is_error, retryable, partial_effect, effect_id, duration_ms, start_ns, issues, input_hash,
  input_shape_id, idempotency_key_hash, conversation_id, call_id, kind, service_id, source_id, exception_type,
  exception_message, client_name, result_bytes, result_tokens, paired`;

const CACHE_MAX = 10_000;

/**
 * Ids of `strings`, cached. The strings interned (tools, input shapes, services, sources, effects) are few per
 * tool and are never deleted: retention would have to scan every call to know one is unused, and they cost a
 * few bytes each.
 */
export class StringIds {
  readonly #ids = new Map<string, number>();
  readonly #find;
  readonly #insert;

  constructor(db: Database.Database) {
    this.#find = db
      .prepare<[string], number>('SELECT id FROM strings WHERE value = ?')
      .pluck()
      .safeIntegers(false);
    this.#insert = db.prepare<[string]>('INSERT INTO strings (value) VALUES (?)');
  }

  id(value: string): number {
    const cached = this.#ids.get(value);
    if (cached !== undefined) return cached;
    const id = this.#find.get(value) ?? Number(this.#insert.run(value).lastInsertRowid);
    if (this.#ids.size >= CACHE_MAX) this.#ids.clear();
    this.#ids.set(value, id);
    return id;
  }

  idOrNull(value: string | null): number | null {
    return value === null ? null : this.id(value);
  }

  /** After a rolled-back transaction: ids it inserted are gone. */
  forget(): void {
    this.#ids.clear();
  }
}

/** The row of one call, in CALL_ROW_COLUMNS order. */
export function callRow(seq: number, v: CallValues, paired: number, strings: StringIds): unknown[] {
  // v[0] (the trace id) is in `traces`; v[24] (the call bucket) is no longer stored.
  return [
    seq,
    keyBytes(v[1]),
    keyBytes(v[2]),
    strings.id(v[3]),
    v[4],
    keyBytes(v[5]),
    v[6],
    v[7],
    v[8],
    v[9],
    v[10],
    v[11],
    v[12],
    strings.idOrNull(v[13]),
    v[14],
    v[15],
    v[16],
    keyBytes(v[17]),
    strings.idOrNull(v[18]),
    keyBytes(v[19]),
    v[20],
    v[21],
    v[22],
    strings.idOrNull(v[23]),
    strings.id(v[25]),
    v[26],
    v[27],
    v[28],
    v[29],
    v[30],
    paired,
  ];
}
