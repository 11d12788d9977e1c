// Time ranges and how times are shown: in the viewer's zone, with UTC in the tooltip.

export const PRESETS = ['15m', '1h', '6h', '24h', '7d'] as const;
export type Preset = (typeof PRESETS)[number];

export const isPreset = (v: string): v is Preset => (PRESETS as readonly string[]).includes(v);

export type TimeRange =
  | { kind: 'preset'; preset: Preset }
  | { kind: 'custom'; since: string; until: string };

export const DEFAULT_RANGE: TimeRange = { kind: 'preset', preset: '24h' };

/** The API's since/until parameters for a range (durations mean "that long ago"). */
export function rangeParams(r: TimeRange): { since: string; until?: string } {
  return r.kind === 'preset' ? { since: r.preset } : { since: r.since, until: r.until };
}

export function rangeLabel(r: TimeRange): string {
  return r.kind === 'preset'
    ? `last ${r.preset}`
    : `${formatTime(r.since)} – ${formatTime(r.until)}`;
}

const local = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : local.format(d);
}

export function utcTitle(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : `${d.toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

// One formatter for the page and `toolscope report` (the collector's format.ts).
export { formatMs, formatPercent } from '@toolscope/collector/schemas';

/** `datetime-local` input value (local zone, minutes) of an ISO time. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
