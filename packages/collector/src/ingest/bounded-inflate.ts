// Inflating a compressed request (an OTLP/HTTP gzip body, an OTLP/gRPC gzip or deflate message) within the body
// limit and the in-flight budget, for both receivers: the room is reserved before inflating, as much as the body
// says it needs, so a bomb costs at most the room there was and requests of ordinary size inflate side by side.
import { createGunzip, createInflate } from 'node:zlib';
import type { BodyBudget } from './body-budget.js';

/** Said when bodies do not fit the in-flight budget now. */
export const BUSY_MESSAGE = 'too many request bytes in flight: retry after the indicated delay';

export type Inflated =
  | { ok: true; body: Buffer }
  | {
      ok: false;
      error: 'INVALID_OTLP' | 'PAYLOAD_TOO_LARGE' | 'BODIES_IN_FLIGHT';
      message: string;
    };

/**
 * What a gzip body says it inflates to: a member ends with its inflated size (RFC 1952's ISIZE, modulo 2^32),
 * exact for the single-member bodies exporters send; 0 where nothing is said (deflate, a body too short).
 */
function statedSize(body: Buffer, format: 'gzip' | 'deflate'): number {
  return format === 'gzip' && body.length >= 18 ? body.readUInt32LE(body.length - 4) : 0;
}

/**
 * Inflates at most `limit` bytes, and at most what the budget has room for. The room reserved for `holder`
 * before inflating is what the body says it inflates to, or the whole limit where it says nothing (deflate):
 * as `takeUpTo` gives a request alone all it asks, a request alone at the start always finishes
 * (docs/decisions/0006-ingest-memory-bound.md). Output past a stated size that was wrong takes what room there
 * is then. The output goes into one buffer of the stated size, or (nothing stated) one that starts at eight times
 * the compressed size and doubles within the reservation; what the body does not use is given back at the end.
 * Until decision 0073 every body reserved the whole limit (16 MiB by default) and allocated a buffer of it: under
 * the default memory limit, whose budget is 12.5 MiB, one gzipped request at a time could inflate and the others
 * were refused (docs/decisions/0073-bodies-let-go-before-the-commit.md).
 */
export async function inflateBounded(
  body: Buffer,
  format: 'gzip' | 'deflate',
  limit: number,
  budget: BodyBudget,
  holder: object,
): Promise<Inflated> {
  const stated = Math.min(limit, statedSize(body, format));
  const busy: Inflated = { ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE };
  let reserved = budget.takeUpTo(holder, stated > 0 ? stated : limit);
  if (reserved <= 0) return busy;
  const firstBytes = stated > 0 ? stated : Math.max(64 * 1024, body.length * 8);
  let out = Buffer.allocUnsafe(0);
  let filled = 0;
  /** Makes room for `more` bytes; false when the budget has none. */
  const room = (more: number): boolean => {
    const need = filled + more;
    if (need <= out.length) return true;
    // Past a stated size that was wrong (another member follows): what there is room for now.
    if (need > reserved) reserved += budget.takeUpTo(holder, Math.min(limit, need * 2) - reserved);
    if (need > reserved) return false;
    const size = Math.min(reserved, Math.max(need, out.length === 0 ? firstBytes : out.length * 2));
    const grown = Buffer.allocUnsafe(size);
    out.copy(grown, 0, 0, filled);
    out = grown;
    return true;
  };
  const result = await new Promise<Inflated>((resolve) => {
    const inflater = format === 'gzip' ? createGunzip() : createInflate();
    const finish = (outcome: Inflated) => {
      inflater.removeAllListeners('data');
      inflater.destroy();
      resolve(outcome);
    };
    inflater.on('data', (chunk: Buffer) => {
      if (filled + chunk.length > limit)
        return finish({
          ok: false,
          error: 'PAYLOAD_TOO_LARGE',
          message: `decompressed body is larger than ${limit} bytes`,
        });
      try {
        // Not over the limit, over what is free now: later, with other bodies gone, it may fit.
        if (!room(chunk.length)) return finish(busy);
      } catch {
        // No memory for the buffer now (it is allocated here, in a listener, where a throw would end the process).
        return finish(busy);
      }
      filled += chunk.copy(out, filled);
    });
    inflater.once('error', () =>
      finish({ ok: false, error: 'INVALID_OTLP', message: `invalid ${format} body` }),
    );
    inflater.once('end', () => finish({ ok: true, body: out.subarray(0, filled) }));
    inflater.end(body);
  });
  budget.giveBack(holder, result.ok ? reserved - filled : reserved);
  return result;
}
