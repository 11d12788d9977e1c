// The Markdown section of a report against a baseline: each tool's numbers with their change (▲/▼, absolute
// and relative), tools and codes that came or went, changed contracts with their paths, new flags with their
// trace, and the thresholds crossed.
import { formatCount, formatMs, formatPercent } from '../format.js';
import { cell } from './markdown-cell.js';
import type { Change, Delta, ToolDelta } from './report-delta.js';
import { type Breach, type DeltaLimits, pointsText, relativeText, traceOf } from './thresholds.js';

/** `after ▲ +Δ (+rel)`; `(=)` when unchanged; `(new)` when the baseline had no value. */
function changeText(
  c: Change,
  show: (n: number) => string,
  delta: (d: number) => string = (d) => `${d >= 0 ? '+' : '−'}${show(Math.abs(d))}`,
): string {
  if (c.after === null) return c.before === null ? '–' : `– (was ${show(c.before)})`;
  if (c.before === null || c.change === null) return `${show(c.after)} (new)`;
  if (c.change === 0) return `${show(c.after)} (=)`;
  const arrow = c.change > 0 ? '▲' : '▼';
  const rel = c.relative === null ? '' : ` (${relativeText(c.relative)})`;
  return `${show(c.after)} ${arrow} ${delta(c.change)}${rel}`;
}

const count = (n: number) => formatCount(Math.round(n));

function row(t: ToolDelta, crossed: Set<string>): string {
  const mark = (threshold: string) => (crossed.has(`${threshold}\u0000${t.name}`) ? ' ❌' : '');
  return [
    cell(t.name),
    changeText(t.calls, count),
    changeText(t.errorRate, formatPercent, pointsText) + mark('max-error-rate-increase'),
    changeText(t.p95Ms, formatMs) + mark('max-p95-increase'),
    changeText(t.resultTokensP95, count) + mark('max-result-tokens-increase'),
    changeText(t.schemaTokens, count),
  ].join(' | ');
}

function limitsText(l: DeltaLimits): string {
  const parts = [
    l.maxErrorRateIncrease !== undefined
      ? `error rate up to ${pointsText(l.maxErrorRateIncrease)}`
      : '',
    l.maxP95Increase !== undefined ? `p95 up to ${relativeText(l.maxP95Increase)}` : '',
    l.maxResultTokensIncrease !== undefined
      ? `result tokens p95 up to ${relativeText(l.maxResultTokensIncrease)}`
      : '',
    l.failOnNew.length ? `fail on new ${l.failOnNew.join(', ')}` : '',
    l.failOnContractChange ? 'fail on a contract change' : '',
  ].filter(Boolean);
  return parts.length ? `Limits against the baseline: ${parts.join('; ')}.` : '';
}

/** The section's lines, to follow the report's own table. */
export function deltaMarkdown(d: Delta, limits: DeltaLimits, breaches: Breach[]): string[] {
  const crossed = new Set(breaches.map((b) => `${b.threshold}\u0000${b.tool}`));
  const out = ['', `### Against the baseline (${cell(d.baseline.file)})`, ''];
  if (d.tools.length) {
    out.push('| tool | calls | error rate | p95 | result tokens p95 | schema tokens |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const t of d.tools) out.push(`| ${row(t, crossed)} |`);
  } else out.push('No tool is in both this run and the baseline.');
  const names = (xs: string[]) => xs.map(cell).join(', ');
  if (d.toolsAdded.length || d.toolsGone.length) out.push('');
  if (d.toolsAdded.length) out.push(`- Tools added: ${names(d.toolsAdded)}`);
  if (d.toolsGone.length) out.push(`- Tools gone: ${names(d.toolsGone)}`);
  const codes = d.tools.filter((t) => t.codesAppeared.length || t.codesDisappeared.length);
  if (codes.length) {
    out.push('', '#### Error codes that appeared or disappeared', '');
    for (const t of codes)
      out.push(
        `- ${cell(t.name)}: ${[
          t.codesAppeared.length ? `${names(t.codesAppeared)} appeared` : '',
          t.codesDisappeared.length ? `${names(t.codesDisappeared)} disappeared` : '',
        ]
          .filter(Boolean)
          .join('; ')}`,
      );
  }
  if (d.contractsChanged === null)
    out.push('', 'The baseline lists no contracts: contract changes cannot be told.');
  else if (d.contractsChanged.length) {
    out.push('', `#### Contracts changed (${d.contractsChanged.length})`, '');
    for (const c of d.contractsChanged) {
      const mark = crossed.has(`fail-on-contract-change\u0000${c.tool}`) ? '❌ ' : '';
      const version = c.versionChanged
        ? `version ${cell(c.before.version)} → ${cell(c.after.version)}`
        : `⚠️ same version ${cell(c.after.version)}`;
      const paths =
        c.paths === null
          ? 'changed paths unknown (neither the catalog nor the baseline has both schemas)'
          : c.paths.map((p) => `\`${cell(p)}\``).join(', ') || 'no schema path changed';
      out.push(
        `- ${mark}**${cell(c.tool)}** \`${cell(c.before.schemaHash)}\` → \`${cell(c.after.schemaHash)}\` (${version}): ${paths}`,
      );
    }
  }
  if (d.newFlags.length) {
    out.push('', `#### New flags (${d.newFlags.length})`, '');
    for (const f of d.newFlags.slice(0, 50)) {
      const mark = limits.failOnNew.includes(f.kind) ? '❌' : f.severity === 'error' ? '🔴' : '🟡';
      const trace = traceOf(f);
      out.push(
        `- ${mark} **${f.kind}** · ${cell(f.tool)}${trace ? ` trace \`${cell(trace)}\`` : ''}: ${cell(f.summary)}`,
      );
    }
    if (d.newFlags.length > 50) out.push(`- … and ${d.newFlags.length - 50} more`);
  } else out.push('', 'No new flags against the baseline.');
  if (d.flagsGone) out.push(`${d.flagsGone} flag(s) of the baseline are gone.`);
  if (breaches.length) {
    out.push('', `#### Thresholds crossed (${breaches.length})`, '');
    for (const b of breaches) out.push(`- ❌ ${b.threshold}: ${cell(b.message)}`);
  }
  const l = limitsText(limits);
  if (l) out.push('', l);
  return out;
}
