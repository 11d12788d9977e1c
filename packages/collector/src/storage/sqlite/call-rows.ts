// How SQLite's writer stores a call's keys and strings in the narrowed row (call-row.ts, call-layout.ts): hex
// keys as bytes, repeated strings as ids. Runs on the writer thread, the only writer of the file.
import type Database from 'better-sqlite3';
import { KEYED_COLUMNS } from '../call-row.js';

/** Each lowercase hex digit's value by its char code; -1 for every other code below 128. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[0x30 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[0x61 + i] = 10 + i;

/**
 * Writes `value`'s 8 bytes into `into` when it is 16 lowercase hex digits; false (and `into` partly written)
 * otherwise. By hand: a regular expression and Buffer.write(…, 'hex') took 140 ns a key, this 31, and the
 * writer converts five or six keys a call.
 */
function hex16Into(value: string, into: Buffer): boolean {
  if (value.length !== 16) return false;
  for (let i = 0; i < 8; i++) {
    const h = value.charCodeAt(2 * i);
    const l = value.charCodeAt(2 * i + 1);
    const high = h < 128 ? (NIBBLE[h] as number) : -1;
    const low = l < 128 ? (NIBBLE[l] as number) : -1;
    if ((high | low) < 0) return false;
    into[i] = (high << 4) | low;
  }
  return true;
}

/**
 * A span id or 16-hex hash as its 8 bytes; any other value (another dialect's hash, say) stays as it is, text,
 * which the view tells apart by its type. The view reads a BLOB back with lower(hex(…)), so only lowercase hex
 * is converted: what is read is exactly what was written.
 */
export function keyBytes(value: string | null): Buffer | string | null {
  if (value === null) return value;
  const bytes = Buffer.allocUnsafe(8);
  return hex16Into(value, bytes) ? bytes : value;
}

/**
 * keyBytes into buffers of its own, reused: a key is bound (and copied by SQLite) before the next row is made,
 * so a row's keys need only last that long. A new Buffer per key was a twelfth of what the writer thread
 * allocated. The buffers go round: a row has at most KEYED_COLUMNS keys.
 */
export class KeyBuffers {
  readonly #slots: Buffer[];
  #next = 0;

  constructor() {
    const all = Buffer.alloc(8 * KEYED_COLUMNS);
    this.#slots = Array.from({ length: KEYED_COLUMNS }, (_, i) => all.subarray(8 * i, 8 * i + 8));
  }

  /** As keyBytes, in a buffer valid until KEYED_COLUMNS more keys have been made. */
  key(value: string | null): Buffer | string | null {
    if (value === null) return value;
    const slot = this.#slots[this.#next] as Buffer;
    if (!hex16Into(value, slot)) return value;
    this.#next = (this.#next + 1) % KEYED_COLUMNS;
    return slot;
  }
}

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

  /** After a rolled-back transaction: ids it inserted are gone. */
  forget(): void {
    this.#ids.clear();
  }
}
