// Data loading for views: one request per change of its inputs, cancelled when they change again, and the
// last good data kept on screen while a live refresh is in flight.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { z } from 'zod';
import { type ApiResult, getApi } from './api';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; kind: Exclude<ApiResult<T>, { ok: true }>['kind']; message: string }
  | { state: 'ready'; data: T; refreshing: boolean };

export function useApi<S extends z.ZodType>(
  path: string | null,
  schema: S,
  tick: number,
): Loaded<z.output<S>> {
  const [loaded, setLoaded] = useState<Loaded<z.output<S>>>({ state: 'loading' });
  const lastPath = useRef<string | null>(null);
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    const samePath = path === lastPath.current;
    setLoaded((prev) =>
      samePath && prev.state === 'ready' ? { ...prev, refreshing: true } : { state: 'loading' },
    );
    lastPath.current = path;
    getApi(path, schema, controller.signal).then((r) => {
      if (controller.signal.aborted) return;
      setLoaded(
        r.ok
          ? { state: 'ready', data: r.data, refreshing: false }
          : { state: 'error', kind: r.kind, message: r.message },
      );
      if (!r.ok && r.kind === 'unauthorized')
        window.dispatchEvent(new Event('toolscope:unauthorized'));
    });
    return () => controller.abort();
  }, [path, tick, schema]);
  return loaded;
}
