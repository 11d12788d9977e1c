// The thresholds on change against a baseline, each named as its flag: which tools, flags and contracts cross
// them, with a message that carries the numbers.

import type { Flag } from '../detectors/flag.js';
import { formatMs, formatPercent } from '../format.js';
import type { Change, ContractChange, Delta } from './report-delta.js';

const DELTA_THRESHOLDS = [
  'max-error-rate-increase',
  'max-p95-increase',
  'max-result-tokens-increase',
  'fail-on-new',
  'fail-on-contract-change',
] as const;
/** A threshold's name: its flag without the leading `--`. */
export type DeltaThreshold = (typeof DELTA_THRESHOLDS)[number];

/** The thresholds on change that were given (undefined, [] or false when not). */
export type DeltaLimits = {
  /** Absolute: error rate after − before, as a rate (0.02 is two percentage points). */
  maxErrorRateIncrease: number | undefined;
  /** Relative: (after − before) / before. */
  maxP95Increase: number | undefined;
  maxResultTokensIncrease: number | undefined;
  failOnNew: string[];
  failOnContractChange: boolean;
};

/** One crossed threshold: for a tool, a new flag or a changed contract. */
export type Breach = {
  threshold: DeltaThreshold;
  tool: string;
  message: string;
  flag?: Flag;
  contract?: ContractChange;
};

const signed = (n: number, text: string) => `${n >= 0 ? '+' : '−'}${text}`;
/** A relative change as a signed percentage: +12 %, −3.5 %. */
export const relativeText = (r: number) =>
  signed(r, `${Math.abs(r * 100).toFixed(Math.abs(r) < 0.1 ? 1 : 0)} %`);
/** An error-rate change in percentage points. */
export const pointsText = (d: number) => signed(d, `${Math.abs(d * 100).toFixed(1)} pp`);

/** `after (was before, +Δ, +rel)` for a threshold message. */
function moved(c: Change, show: (n: number) => string, delta: (c: Change) => string): string {
  return `${show(c.after ?? 0)} (was ${show(c.before ?? 0)}, ${delta(c)})`;
}
const relOf = (c: Change) => (c.relative === null ? 'no reference' : relativeText(c.relative));
const tokens = (n: number) => `${Math.round(n).toLocaleString('en-US')} tokens`;

/** Every crossed threshold of `delta` under `limits`, tools first, then flags, then contracts. */
export function breachesOf(delta: Delta, limits: DeltaLimits): Breach[] {
  const out: Breach[] = [];
  for (const t of delta.tools) {
    const e = t.errorRate;
    if (limits.maxErrorRateIncrease !== undefined && (e.change ?? 0) > limits.maxErrorRateIncrease)
      out.push({
        threshold: 'max-error-rate-increase',
        tool: t.name,
        message: `${t.name}: error rate ${moved(e, formatPercent, (c) =>
          c.relative === null
            ? pointsText(c.change ?? 0)
            : `${pointsText(c.change ?? 0)}, ${relativeText(c.relative)}`,
        )} rose more than ${pointsText(limits.maxErrorRateIncrease)}`,
      });
    const p = t.p95Ms;
    if (limits.maxP95Increase !== undefined && (p.relative ?? 0) > limits.maxP95Increase)
      out.push({
        threshold: 'max-p95-increase',
        tool: t.name,
        message: `${t.name}: p95 ${moved(p, formatMs, relOf)} rose more than ${relativeText(limits.maxP95Increase)}`,
      });
    const r = t.resultTokensP95;
    if (
      limits.maxResultTokensIncrease !== undefined &&
      (r.relative ?? 0) > limits.maxResultTokensIncrease
    )
      out.push({
        threshold: 'max-result-tokens-increase',
        tool: t.name,
        message: `${t.name}: result tokens p95 ${moved(r, tokens, relOf)} rose more than ${relativeText(limits.maxResultTokensIncrease)}`,
      });
  }
  for (const f of delta.newFlags)
    if (limits.failOnNew.includes(f.kind))
      out.push({
        threshold: 'fail-on-new',
        tool: f.tool,
        flag: f,
        message: `${f.tool}: new ${f.kind}${traceOf(f) ? ` (trace ${traceOf(f)})` : ''}: ${f.summary}`,
      });
  if (limits.failOnContractChange)
    for (const c of delta.contractsChanged ?? [])
      out.push({
        threshold: 'fail-on-contract-change',
        tool: c.tool,
        contract: c,
        message: `${c.tool}: contract ${c.before.schemaHash} → ${c.after.schemaHash} ${c.versionChanged ? `(version ${c.before.version} → ${c.after.version})` : `without a version change (still ${c.after.version})`}${c.paths ? `: ${c.paths.join('; ') || 'no schema path changed'}` : ': the changed paths are unknown (neither the catalog nor the baseline has both schemas)'}`,
      });
  return out;
}

/** The trace that proves a flag: its own, else the first of its evidence. */
export function traceOf(f: Flag): string | undefined {
  return f.traceId ?? f.evidence.traceIds?.[0];
}
