// The API client: every response is parsed with the collector's own Zod schemas before the UI sees it, and
// the bearer token (when the collector has one) comes from this browser session only.
import type { z } from 'zod';

const TOKEN_KEY = 'toolscope.token';

export type ApiResult<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      kind: 'unauthorized' | 'not_found' | 'http' | 'network' | 'invalid';
      message: string;
    };

/** Takes a token passed as `#token=…` in the URL, keeps it for this session and removes it from the URL. */
export function adoptTokenFromFragment(): void {
  const m = /(?:^#|[#&?])token=([^&]+)/.exec(location.hash);
  if (!m?.[1]) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The authorization header of this session's token, for requests that do not go through getApi. */
export function authHeaders(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

export function hasToken(): boolean {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

/** A query string from defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

function errorMessage(body: unknown, status: number): string {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const e = (body as { error: unknown }).error;
    if (typeof e === 'object' && e !== null && 'message' in e) {
      const m = (e as { message: unknown }).message;
      if (typeof m === 'string') return m;
    }
  }
  return `the collector answered ${status}`;
}

export async function getApi<S extends z.ZodType>(
  path: string,
  schema: S,
  signal?: AbortSignal,
): Promise<ApiResult<z.output<S>>> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  let res: Response;
  try {
    res = await fetch(path, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return {
      ok: false,
      kind: 'network',
      message: `cannot reach the collector: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (res.status === 401)
    return { ok: false, kind: 'unauthorized', message: 'a token is required' };
  if (res.status === 404) return { ok: false, kind: 'not_found', message: errorMessage(body, 404) };
  if (!res.ok) return { ok: false, kind: 'http', message: errorMessage(body, res.status) };
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      kind: 'invalid',
      message: `unexpected response from ${path.split('?')[0]}: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'invalid'}`,
    };
  }
  return { ok: true, data: parsed.data };
}
