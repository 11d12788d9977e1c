// The SARIF 2.1.0 rendering of a report, for code-scanning UIs: one result per new flag (or, without a baseline,
// per flag) and per crossed threshold; rule ids are the flag kinds and the threshold names.
import { createHash } from 'node:crypto';
import type { Flag } from '../detectors/flag.js';
import { formatPercent } from '../format.js';
import { COLLECTOR_VERSION } from '../version.js';
import { clientLabel, type ReportClient } from './baseline.js';
import { flagKey } from './flag-match.js';
import type { Verdict } from './report-format.js';
import { traceOf } from './thresholds.js';

const SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** What each rule means, as code-scanning UIs list it; a kind not named here gets a generic text. */
const RULES: Record<string, string> = {
  identical_retry: 'A tool was called again and again with the same input after failing',
  unrepaired_invalid_input: 'A call that got INVALID_INPUT was repeated with the same input',
  retry_after_non_retryable: 'A call was repeated after a failure its executor said not to retry',
  unsafe_write_retry: 'A write was retried after a partial effect without an idempotency key',
  polling_faster_than_interval:
    "A client polled a task much faster than the server's poll interval",
  silent_schema_change: "A tool's contract changed under the same declared version",
  version_skew: 'Several versions of a tool were live at once',
  input_drift: 'Callers send inputs that the tool rejects or has not seen',
  output_drift: 'A tool answers outputs that break its output schema',
  heavy_schema: "A tool's tools/list entry costs more context than the budget",
  deprecated_tool_in_use: 'A deprecated tool is still called',
  oversized_result: 'Results cost more context than the budget',
  result_growth: 'Results grew against the previous version',
  'max-error-rate': "A tool's error rate is over --max-error-rate",
  'max-error-rate-increase': "A tool's error rate rose more than --max-error-rate-increase",
  'max-p95-increase': "A tool's p95 latency rose more than --max-p95-increase",
  'max-result-tokens-increase':
    "A tool's result tokens p95 rose more than --max-result-tokens-increase",
  'fail-on-contract-change': "A tool's contract (schema hash) changed against the baseline",
};

type Result = {
  ruleId: string;
  level: 'error' | 'warning';
  message: { text: string };
  locations: object[];
  partialFingerprints: Record<string, string>;
  properties: Record<string, unknown>;
};

const fingerprint = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * Where results point. Tool calls have no source line; GitHub code scanning needs a file, so on GitHub Actions
 * results point at the workflow that ran (GITHUB_WORKFLOW_REF), and everywhere at the tool by name.
 */
function locationOf(tool: string, env: NodeJS.ProcessEnv): object[] {
  const ref = /^[^/]+\/[^/]+\/([^@]+)@/.exec(env.GITHUB_WORKFLOW_REF ?? '')?.[1];
  return [
    {
      ...(ref ? { physicalLocation: { artifactLocation: { uri: ref } } } : {}),
      logicalLocations: [{ name: tool, fullyQualifiedName: `tool:${tool}`, kind: 'function' }],
    },
  ];
}

/** The report as a SARIF 2.1.0 log with one run; `env` says whether this is a GitHub Actions job. */
export function sarif(v: Verdict, env: NodeJS.ProcessEnv): string {
  const results: Result[] = [];
  const failing = new Set<Flag>([
    ...v.failingFlags,
    ...v.breaches.flatMap((b) => (b.flag ? [b.flag] : [])),
  ]);
  const listed = v.delta ? [...new Set([...v.delta.newFlags, ...v.failingFlags])] : v.flags;
  for (const f of listed) {
    const trace = traceOf(f);
    results.push({
      ruleId: f.kind,
      level: failing.has(f) || f.severity === 'error' ? 'error' : 'warning',
      message: { text: `${f.tool}: ${f.summary}${trace ? ` (trace ${trace})` : ''}` },
      locations: locationOf(f.tool, env),
      partialFingerprints: { 'toolscopeFlag/v1': fingerprint(flagKey(f)) },
      properties: {
        tool: f.tool,
        ...(trace ? { traceId: trace } : {}),
        new: v.delta ? v.delta.newFlags.includes(f) : null,
      },
    });
  }
  const thresholds = [
    ...v.overThreshold.map((t) => ({
      threshold: 'max-error-rate',
      tool: t.name,
      message: `${t.name}: error rate ${formatPercent(t.errorRate)} is over ${formatPercent(v.maxErrorRate ?? 0)}`,
    })),
    ...v.breaches.filter((b) => !b.flag),
  ];
  // Thresholds count the tools over one client's calls under --client (flags are every client's): the result
  // says so, and its fingerprint is that client's, so it is not taken for every call's result of the same name.
  const whose = v.client ? ` (${clientLabel(v.client)})` : '';
  const clientKey = v.client ? `\u0000${v.client.name}\u0000${v.client.version ?? ''}` : '';
  for (const b of thresholds)
    results.push({
      ruleId: b.threshold,
      level: 'error',
      message: { text: `${b.message}${whose}` },
      locations: locationOf(b.tool, env),
      partialFingerprints: {
        'toolscopeThreshold/v1': fingerprint(`${b.threshold}\u0000${b.tool}${clientKey}`),
      },
      properties: { tool: b.tool, ...(v.client ? { client: v.client } : {}) },
    });
  const ids = [...new Set(results.map((r) => r.ruleId))].sort();
  const rules = ids.map((id) => ({
    id,
    name: id,
    shortDescription: { text: RULES[id] ?? `Toolscope flag ${id}` },
  }));
  const log = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'toolscope', version: COLLECTOR_VERSION, rules } },
        ...(v.client ? clientRun(v.client) : {}),
        results: results.map((r) => ({ ...r, ruleIndex: ids.indexOf(r.ruleId) })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/**
 * What a run of one client's calls adds: its own automation category (SARIF's runAutomationDetails; GitHub code
 * scanning keeps the alerts of each category apart, so uploading one client's report does not close another's
 * or every call's alerts) and the client itself. The name is percent-encoded in the id: the category is the id
 * up to its last slash.
 */
function clientRun(client: NonNullable<ReportClient>): object {
  const version = client.version === undefined ? '' : `@${encodeURIComponent(client.version)}`;
  return {
    automationDetails: {
      id: `toolscope/client:${encodeURIComponent(client.name)}${version}/`,
      description: {
        text: `Thresholds counted over ${clientLabel(client)}; flags are every client's.`,
      },
    },
    properties: { client },
  };
}
