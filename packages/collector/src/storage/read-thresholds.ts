// The thresholds of the flags computed at read time (drift, contracts), remembered in the store by the collector
// that writes it, so `report --db` on the same file lists the same flags as that collector's API and dashboard
// (the demo's short rollout grace was lost when the report read the file with the defaults).
import { z } from 'zod';
import { DEFAULT_DRIFT_THRESHOLDS, type DriftThresholds } from '../detectors/drift.js';

export const READ_THRESHOLDS_KEY = 'read_thresholds';

const storedSchema = z
  .object({
    rolloutGraceNs: z
      .string()
      .regex(/^\d{1,20}$/)
      .transform(BigInt),
    minFailures: z.number().int().min(1),
    minTraces: z.number().int().min(1),
    schemaTokenBudget: z.number().int().min(1),
    resultTokenBudget: z.number().int().min(1),
  })
  .partial();

export function encodeThresholds(t: DriftThresholds): string {
  return JSON.stringify({ ...t, rolloutGraceNs: t.rolloutGraceNs.toString() });
}

/** What a stored value says, field by field; an unreadable value counts as nothing stored. */
export function decodeThresholds(value: unknown): Partial<DriftThresholds> {
  if (typeof value !== 'string') return {};
  try {
    const parsed = storedSchema.safeParse(JSON.parse(value));
    if (!parsed.success) return {};
    return Object.fromEntries(
      Object.entries(parsed.data).filter(([, v]) => v !== undefined),
    ) as Partial<DriftThresholds>;
  } catch {
    return {};
  }
}

export type ThresholdOptions = {
  drift?: Partial<DriftThresholds> | undefined;
  /** Write the resolved thresholds to the store (a collector that serves the data). */
  rememberDrift?: boolean | undefined;
  /** Start from what the store remembers (a report reading the store directly). */
  storedDrift?: boolean | undefined;
};

/** The thresholds to read with: defaults, then what the store remembers when asked, then the options. */
export function resolveThresholds(o: ThresholdOptions, stored: unknown): DriftThresholds {
  return {
    ...DEFAULT_DRIFT_THRESHOLDS,
    ...(o.storedDrift ? decodeThresholds(stored) : {}),
    ...o.drift,
  };
}
