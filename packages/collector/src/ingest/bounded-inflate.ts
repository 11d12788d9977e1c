// Inflating a compressed request (an OTLP/HTTP gzip body, an OTLP/gRPC gzip or deflate message) within the body
// limit and the in-flight budget, for both receivers: the budget is taken as the output grows, so a bomb costs at
// most the room there was, and requests of ordinary size inflate side by side.
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
 * The first output buffer. A gzip member ends with its inflated size (RFC 1952's ISIZE, modulo 2^32), which for
 * the single-member bodies exporters send is exact: one buffer of that size, nothing copied or left over. Without
 * it (deflate) eight times the compressed size: OTLP batches inflate to about ten times their gzip size. A stated
 * size that is wrong costs a copy as the buffer doubles, or room given back at the end; never more than the limit.
 */
function firstBytes(body: Buffer, format: 'gzip' | 'deflate', limit: number): number {
  const stated = format === 'gzip' && body.length >= 18 ? body.readUInt32LE(body.length - 4) : 0;
  return Math.min(limit, stated > 0 ? stated : Math.max(64 * 1024, body.length * 8));
}

/**
 * Inflates at most `limit` bytes, and at most what the budget has room for. The output goes into one buffer that
 * doubles as it fills, its growth taken from the budget for `holder` before it is allocated, and what the body
 * does not use is given back at the end. Until decision 0073 the whole limit (16 MiB by default) was reserved and
 * allocated before inflating: under the default memory limit, whose budget is 12.5 MiB, one gzipped request at a
 * time could inflate and the others were refused, and each request's buffer counted 16 MiB of external memory
 * (docs/decisions/0073-bodies-let-go-before-the-commit.md).
 */
export async function inflateBounded(
  body: Buffer,
  format: 'gzip' | 'deflate',
  limit: number,
  budget: BodyBudget,
  holder: object,
): Promise<Inflated> {
  let out = Buffer.allocUnsafe(0);
  let filled = 0;
  /** Makes room for `more` bytes; false when the budget has none. */
  const room = (more: number): boolean => {
    if (filled + more <= out.length) return true;
    const size = Math.min(
      limit,
      Math.max(filled + more, out.length === 0 ? firstBytes(body, format, limit) : out.length * 2),
    );
    if (!budget.take(holder, size - out.length)) return false;
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
        finish({
          ok: false,
          error: 'PAYLOAD_TOO_LARGE',
          message: `decompressed body is larger than ${limit} bytes`,
        });
      // Not over the limit, over what is free now: later, with other bodies gone, it may fit.
      else if (!room(chunk.length))
        finish({ ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE });
      else filled += chunk.copy(out, filled);
    });
    inflater.once('error', () =>
      finish({ ok: false, error: 'INVALID_OTLP', message: `invalid ${format} body` }),
    );
    inflater.once('end', () => finish({ ok: true, body: out.subarray(0, filled) }));
    inflater.end(body);
  });
  budget.giveBack(holder, result.ok ? out.length - filled : out.length);
  return result;
}
