// The stores one conformance file opens for a backend: fresh locations, opened storages, all closed and dropped
// after each test.
import { afterEach } from 'vitest';
import { encodeThresholds, resolveThresholds } from '../../src/detection/read-thresholds.js';
import type { DriftThresholds } from '../../src/detectors/drift.js';
import type { Storage } from '../../src/index.js';
import type { OpenOptions } from '../../src/pipeline.js';
import { type Backend, open, type StoreLocation } from '../backends.js';
import { HOUR_NS, nowNs } from './spans.js';

export function useStores(backend: Backend) {
  const opened: Storage[] = [];
  const places: StoreLocation[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => {});
    for (const p of places.splice(0)) await p.drop();
  });
  return {
    fresh: async () => {
      const place = await backend.location();
      places.push(place);
      return place;
    },
    openAt: async (place: StoreLocation, options: OpenOptions = {}) => {
      const s = await open(place.db, options);
      opened.push(s);
      return s;
    },
    window: () => ({ since: nowNs() - HOUR_NS, until: nowNs() + HOUR_NS }),
    /** A storage the test closed itself (a restart): not closed again after it. */
    closedByTest: (s: Storage) => {
      opened.splice(opened.indexOf(s), 1);
    },
  };
}

/** Open options of a store whose readers use these thresholds (over the defaults), as a collector's would. */
export function readingWith(t: Partial<DriftThresholds>): OpenOptions {
  return { readSettings: encodeThresholds(resolveThresholds(t)) };
}
