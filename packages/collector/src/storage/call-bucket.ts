// Which of CALL_BUCKETS a tool-call id belongs to. Call ids are random, so an index on them alone is a
// random-key index: every commit dirties pages all over it, and more of them as it grows (measured: raw insert
// 25.3k spans/s without it, 15.0–15.4k with it, at 150k calls). Indexed as (bucket, start_ns, call_id), each
// bucket grows at its end like a time index, so a commit dirties at most about CALL_BUCKETS leaf pages, and a
// lookup scans one bucket of the time window: 1/CALL_BUCKETS of its calls, from the index alone. 64, not 16:
// with 16 a search over 1M calls scanned 62k index entries (9 ms); 64 dirty pages per commit are still few.

export const CALL_BUCKETS = 64;

/** FNV-1a (32-bit) of the id's UTF-16 code units, reduced to a bucket. Stable: stored rows depend on it. */
export function callBucket(callId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < callId.length; i++) {
    h ^= callId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % CALL_BUCKETS;
}
