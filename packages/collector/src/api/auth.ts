// Bearer-token check for every route when a token is configured: constant-time comparison, and the token
// never appears in logs or error messages.
import { createHash, timingSafeEqual } from 'node:crypto';

export type TokenCheck = (authorization: string | undefined) => boolean;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function tokenCheck(token: string | undefined): TokenCheck | undefined {
  if (token === undefined) return undefined;
  const expected = digest(token);
  return (authorization) => {
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    // Comparing fixed-length digests keeps the time independent of where the strings differ.
    return timingSafeEqual(digest(m?.[1] ?? ''), expected) && m !== null;
  };
}
