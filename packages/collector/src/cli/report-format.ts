// What a report decided (the verdict) and two of its renderings: Markdown for a CI job summary and JSON with the
// API shapes, which a later run reads as its baseline (junit.ts and sarif.ts render the others).

import type { ToolStats } from '../api/schemas.js';
import type { ContractWeight, ServerWeight } from '../api/tool-weights.js';
import { type Flag, type TotalWasted, totalWasted } from '../detectors/flag.js';
import { formatBytes, formatCount, formatMs, formatPercent } from '../format.js';
import {
  type ContractSchemas,
  EVERY_CALL_FORMAT_VERSION,
  REPORT_FORMAT_VERSION,
  type ReportClient,
} from './baseline.js';
import { deltaMarkdown } from './delta-markdown.js';
import { cell } from './markdown-cell.js';
import type { Delta } from './report-delta.js';
import { type ReportRecovery, recoveryMarkdown } from './report-recovery.js';
import type { Breach, DeltaLimits } from './thresholds.js';

/** What a report decided, every rendering's input. */
export type Verdict = {
  /** The MCP client whose calls the tools count (--client), or null for every call. */
  client: ReportClient;
  tools: ToolStats[];
  /** What each server's tools/list weighs (contracts/weights.ts). */
  servers: ServerWeight[];
  /** The newest contract of every tool, heaviest first (contracts/weights.ts). */
  contracts: ContractWeight[];
  flags: Flag[];
  maxErrorRate: number | undefined;
  failOn: string[];
  /** Tools over the error-rate threshold. */
  overThreshold: ToolStats[];
  /** Flags whose kind is in --fail-on. */
  failingFlags: Flag[];
  /** The schemas of each tool's newest contract, so that this report can be a later run's baseline. */
  contractSchemas: ContractSchemas[];
  /** What changed against --baseline, with its limits and what crossed them; null and [] without one. */
  delta: Delta | null;
  limits: DeltaLimits | null;
  breaches: Breach[];
  /** What agents did after each tool's failed calls (report-recovery.ts); null when not known. */
  recovery: ReportRecovery | null;
  passed: boolean;
};

/**
 * The agent's own text as a code span, where Markdown reads nothing but the span's end: backticks become
 * quotes, line breaks and other control characters spaces (escaping as in a table cell would show literally).
 */
const codeSpan = (text: string) => {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    out += c === '`' ? "'" : code < 0x20 || code === 0x7f ? ' ' : c;
  }
  return `\`${out}\``;
};

const pct = formatPercent;
const ms = formatMs;

/** The report as Markdown, as a CI job summary shows it. */
export function markdown(v: Verdict, sinceLabel: string): string {
  const lines: string[] = [];
  lines.push(
    `## Toolscope report (last ${sinceLabel}): ${v.passed ? '✅ within thresholds' : '❌ thresholds crossed'}`,
  );
  lines.push('');
  if (v.client)
    lines.push(
      `Tools counted over the calls of MCP client ${codeSpan(v.client.name)}${v.client.version === undefined ? '' : ` version ${codeSpan(v.client.version)}`} only; flags, contracts and recovery are every client's.`,
      '',
    );
  if (v.tools.length === 0) lines.push('No tool calls were recorded.');
  else {
    lines.push('| tool | calls | errors | error rate | p95 | codes |');
    lines.push('| --- | ---: | ---: | ---: | ---: | --- |');
    for (const t of v.tools) {
      const over = v.overThreshold.includes(t) ? ' ❌' : '';
      const codes =
        Object.entries(t.codes)
          .map(([k, n]) => `${cell(k)} ${n}`)
          .join(', ') || '–';
      lines.push(
        `| ${cell(t.name)} | ${t.calls} | ${t.errors} | ${pct(t.errorRate)}${over} | ${ms(t.p95Ms)} | ${codes} |`,
      );
    }
  }
  if (v.delta && v.limits) lines.push(...deltaMarkdown(v.delta, v.limits, v.breaches));
  lines.push(...causes(v.tools), ...weights(v), ...heaviestResults(v.tools));
  lines.push(...recoveryMarkdown(v.recovery));
  lines.push('');
  if (v.flags.length === 0) lines.push('No flags.');
  else {
    lines.push(`### Flags (${v.flags.length})`);
    lines.push('');
    for (const f of v.flags.slice(0, 50)) {
      const mark = v.failingFlags.includes(f) ? '❌' : f.severity === 'error' ? '🔴' : '🟡';
      const where = f.traceId
        ? ` trace \`${cell(f.traceId)}\``
        : f.conversationId
          ? ` conversation \`${cell(f.conversationId)}\``
          : '';
      lines.push(`- ${mark} **${f.kind}** · ${cell(f.tool)}${where}: ${cell(f.summary)}`);
    }
    if (v.flags.length > 50) lines.push(`- … and ${v.flags.length - 50} more`);
    const wasted = totalWasted(v.flags);
    if (wasted.loops > 0) lines.push('', wastedLine(wasted));
  }
  if (v.maxErrorRate !== undefined || v.failOn.length > 0) {
    lines.push('');
    lines.push(
      `Thresholds: ${[v.maxErrorRate !== undefined ? `max error rate ${pct(v.maxErrorRate)}` : '', v.failOn.length ? `fail on ${v.failOn.join(', ')}` : ''].filter(Boolean).join('; ')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What the failing calls threw, per tool (the exception types, most frequent first). */
function causes(tools: ToolStats[]): string[] {
  const thrown = tools.filter((t) => t.exceptions.length > 0);
  if (thrown.length === 0) return [];
  return [
    '',
    '### What failing calls threw',
    '',
    ...thrown.map(
      (t) =>
        `- ${cell(t.name)}: ${t.exceptions.map((e) => `${cell(e.type)} ×${e.count}`).join(', ')}`,
    ),
  ];
}

/** The heaviest tools/list entries and each server's total (schemas cost context). */
function weights(v: Verdict): string[] {
  // Every reported tool, called in the range or not: a listed tool costs context either way.
  const weighed = v.contracts;
  if (weighed.length === 0) return [];
  const shown = weighed.slice(0, 10);
  return [
    '',
    '### Schema weight (tools/list, approximate tokens)',
    '',
    '| tool | tokens | bytes |',
    '| --- | ---: | ---: |',
    ...shown.map((t) => `| ${cell(t.name)} | ${t.schemaTokens} | ${t.schemaBytes} |`),
    ...(weighed.length > shown.length ? [`| … ${weighed.length - shown.length} more | | |`] : []),
    ...(v.servers.length
      ? [
          '',
          `Per server: ${v.servers.map((s) => `${cell(s.service)} ${s.schemaTokens} tokens in ${s.tools} tools`).join('; ')}`,
        ]
      : []),
  ];
}

/** The tools whose results cost the model's context most, by p95 tokens. */
function heaviestResults(tools: ToolStats[]): string[] {
  const sized = tools
    .filter((t) => t.resultTokensP95 !== null)
    .sort((a, b) => (b.resultTokensP95 ?? 0) - (a.resultTokensP95 ?? 0));
  if (sized.length === 0) return [];
  const shown = sized.slice(0, 10);
  const n = formatCount;
  return [
    '',
    '### Heaviest results (what each call returns to the model, approximate tokens)',
    '',
    '| tool | p50 | p95 | max | p95 bytes |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...shown.map(
      (t) =>
        `| ${cell(t.name)} | ${n(t.resultTokensP50)} | ${n(t.resultTokensP95)} | ${n(t.resultTokensMax)} | ${formatBytes(t.resultBytesP95)} |`,
    ),
    ...(sized.length > shown.length ? [`| … ${sized.length - shown.length} more | | | | |`] : []),
  ];
}

/** What the loops of a report wasted, in one sentence (Markdown and JUnit). */
export function wastedLine(w: TotalWasted): string {
  return `**What the loops wasted:** ${w.loops} loop${w.loops === 1 ? '' : 's'}, ${formatCount(w.calls)} calls after their first round, ${ms(w.ms)}, ${formatCount(w.resultTokens)} result tokens, ${formatCount(w.modelTokens)} model tokens.`;
}

/** The JSON report: the API's shapes, the thresholds, the contracts' schemas and, with a baseline, the delta. */
export function json(v: Verdict): string {
  const l = v.limits;
  const body = {
    formatVersion: v.client ? REPORT_FORMAT_VERSION : EVERY_CALL_FORMAT_VERSION,
    client: v.client,
    tools: v.tools,
    servers: v.servers,
    contracts: v.contracts,
    flags: v.flags,
    /** What the loop flags wasted together (each flag's own is in its evidence.wasted). */
    wasted: totalWasted(v.flags),
    passed: v.passed,
    thresholds: {
      maxErrorRate: v.maxErrorRate ?? null,
      failOn: v.failOn,
      ...(l
        ? {
            maxErrorRateIncrease: l.maxErrorRateIncrease ?? null,
            maxP95Increase: l.maxP95Increase ?? null,
            maxResultTokensIncrease: l.maxResultTokensIncrease ?? null,
            failOnNew: l.failOnNew,
            failOnContractChange: l.failOnContractChange,
          }
        : {}),
    },
    contractSchemas: v.contractSchemas,
    recovery: v.recovery,
    ...(v.delta
      ? {
          baseline: {
            ...v.delta,
            breaches: v.breaches.map((b) => ({
              threshold: b.threshold,
              tool: b.tool,
              message: b.message,
            })),
          },
        }
      : {}),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
