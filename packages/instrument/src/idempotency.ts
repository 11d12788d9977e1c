// Idempotent writes: a call whose idempotency key already completed returns the stored outcome without
// executing again. The store is an interface; the default keeps records in memory (24 h, bounded).
import { z } from 'zod';

export const idempotencyRecordSchema = z.object({
  /** Digest of the canonical input the key was first used with: a reused key with other input is refused. */
  inputDigest: z.string(),
  storedAt: z.number(),
  outcome: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('ok'), output: z.unknown(), attempt: z.number().int().min(1) }),
    z.object({
      kind: z.literal('rejected'),
      reason: z.string(),
      message: z.string(),
      attempt: z.number().int().min(1),
    }),
  ]),
});
export type IdempotencyRecord = z.infer<typeof idempotencyRecordSchema>;

/** Where completed idempotent calls are remembered. Records read back are validated before use. */
export interface IdempotencyStore {
  get(key: string): Promise<unknown> | unknown;
  set(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> | void;
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const memoryStoreOptionsSchema = z.object({
  ttlMs: z.number().int().min(1).default(DEFAULT_IDEMPOTENCY_TTL_MS),
  maxEntries: z.number().int().min(1).default(10_000),
});
export type MemoryIdempotencyStoreOptions = z.input<typeof memoryStoreOptionsSchema> & {
  now?: () => number;
};

/** In-memory store: entries expire after their TTL; past `maxEntries` the least recently written goes first. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    const { now, ...rest } = options;
    const parsed = memoryStoreOptionsSchema.parse(rest);
    this.#maxEntries = parsed.maxEntries;
    this.#ttlMs = parsed.ttlMs;
    this.#now = now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): IdempotencyRecord | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.record;
  }

  set(key: string, record: IdempotencyRecord, ttlMs: number = this.#ttlMs): void {
    this.#entries.delete(key);
    this.#entries.set(key, { record, expiresAt: this.#now() + Math.min(ttlMs, this.#ttlMs) });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
}
