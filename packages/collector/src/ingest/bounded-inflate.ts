// Inflating a compressed request (an OTLP/HTTP gzip body, an OTLP/gRPC gzip or deflate message) within the body
// limit and the in-flight budget, for both receivers: the room is reserved before inflating and the unused part
// given back, so a bomb costs at most the room it was given.
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
 * Inflates at most `limit` bytes, and at most what the budget has room for: the room is reserved for `holder`
 * before inflating (concurrent inflations would each see the same room otherwise) and the unused part given back.
 * The output goes into one buffer of the reserved size as it is inflated: its pages cost memory only once written,
 * where zlib's one-shot functions collect chunks and then copy them, twice the output at the end.
 */
export async function inflateBounded(
  body: Buffer,
  format: 'gzip' | 'deflate',
  limit: number,
  budget: BodyBudget,
  holder: object,
): Promise<Inflated> {
  const cap = budget.takeUpTo(holder, limit);
  if (cap <= 0) return { ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE };
  const result = await new Promise<Inflated>((resolve) => {
    const out = Buffer.allocUnsafe(cap);
    let filled = 0;
    const inflater = format === 'gzip' ? createGunzip() : createInflate();
    const finish = (outcome: Inflated) => {
      inflater.removeAllListeners('data');
      inflater.destroy();
      resolve(outcome);
    };
    inflater.on('data', (chunk: Buffer) => {
      if (filled + chunk.length <= cap) {
        filled += chunk.copy(out, filled);
        return;
      }
      // Over what was free but maybe not over the limit: later, with other bodies gone, it may fit.
      if (cap < limit) finish({ ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE });
      else
        finish({
          ok: false,
          error: 'PAYLOAD_TOO_LARGE',
          message: `decompressed body is larger than ${limit} bytes`,
        });
    });
    inflater.once('error', () =>
      finish({ ok: false, error: 'INVALID_OTLP', message: `invalid ${format} body` }),
    );
    inflater.once('end', () => finish({ ok: true, body: out.subarray(0, filled) }));
    inflater.end(body);
  });
  budget.giveBack(holder, result.ok ? cap - result.body.length : cap);
  return result;
}
