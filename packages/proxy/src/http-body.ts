// A request body, read whole before it is forwarded (a `tools/call` gets the proxy's traceparent written into
// it), within the body bound and the process's budget. A body that cannot be held is not forwarded: it is read
// to its end and thrown away, so the client is answered (413, or 503 over the budget) instead of reset.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Holding } from './memory-budget.js';

export type BodyRead =
  | { ok: true; body: Buffer }
  | { ok: false; reason: 'too_large' | 'over_budget' | 'aborted' };

/** Reads `req`'s body into `holding` (which the caller releases once the body is forwarded). */
export function readBody(
  req: IncomingMessage,
  holding: Holding,
  maxBytes: number,
): Promise<BodyRead> {
  const header = req.headers['content-length'];
  const declared = header === undefined ? Number.NaN : Number(header);
  // A declared length is taken from the budget at once, read into one buffer, and refused before any is read.
  if (Number.isSafeInteger(declared) && declared >= 0) {
    const refused = declared > maxBytes ? 'too_large' : holding.resize(declared);
    if (refused) {
      req.resume();
      return Promise.resolve({ ok: false, reason: refused });
    }
  }
  const known = Number.isSafeInteger(declared) && declared >= 0;
  return new Promise((resolve) => {
    const whole = known ? Buffer.allocUnsafe(declared) : undefined;
    let at = 0;
    let parts: Buffer[] = [];
    let settled = false;
    const settle = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      if (!read.ok) {
        parts = [];
        holding.release();
      }
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      // Node's parser never hands on more than the declared length.
      if (whole) {
        at += chunk.copy(whole, at);
        return;
      }
      const refused = holding.add(chunk.length);
      if (!refused) {
        parts.push(chunk);
        return;
      }
      // The rest is read and dropped: the connection stays usable and the answer reaches the client.
      req.off('data', onData);
      req.resume();
      settle({ ok: false, reason: refused });
    };
    req.on('data', onData);
    req.once('end', () => {
      const body = whole
        ? whole.subarray(0, at)
        : parts.length === 1
          ? (parts[0] as Buffer)
          : Buffer.concat(parts);
      settle({ ok: true, body });
    });
    req.once('error', () => settle({ ok: false, reason: 'aborted' }));
    req.once('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}

/** The answer to a body that was not forwarded (an aborted one gets none: its client is gone). */
export function refuseBody(
  res: ServerResponse,
  reason: 'too_large' | 'over_budget',
  limits: { maxBodyMb: number; maxBufferedMb: number },
): void {
  if (reason === 'too_large') {
    res.writeHead(413, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: { code: 'BODY_TOO_LARGE', message: `over ${limits.maxBodyMb} MiB (--max-body-mb)` },
      }),
    );
    return;
  }
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  res.end(
    JSON.stringify({
      error: {
        code: 'PROXY_BUSY',
        message: `the proxy holds ${limits.maxBufferedMb} MiB of messages (--max-buffered-mb); retry`,
      },
    }),
  );
}
