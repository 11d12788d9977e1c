// The validation issues of a call as stored (JSON re-serialized by tool-call.ts after its checks).

/** The path of a call's first validation issue: what argument churn compares across attempts. */
export function firstIssuePath(json: unknown): string | null {
  if (typeof json !== 'string') return null;
  try {
    const items: unknown = JSON.parse(json);
    const first: unknown = Array.isArray(items) ? items[0] : undefined;
    const path = typeof first === 'object' && first !== null ? Reflect.get(first, 'path') : null;
    return typeof path === 'string' ? path : null;
  } catch {
    return null;
  }
}
