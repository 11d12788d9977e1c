// What changed between a baseline report and this run: per tool the numbers with their change, codes that
// appeared or disappeared, tools added or gone, contracts whose schema hash changed (with the changed paths) and
// the flags that are new against the baseline.
import type { ToolStats } from '../api/schemas.js';
import { describeChanges, diffContracts, type SchemaChange } from '../contracts/schema-diff.js';
import type { Flag } from '../detectors/flag.js';
import type { Baseline, BaselineTool } from './baseline.js';
import { newFlags } from './flag-match.js';
import type { ReportData } from './report-data.js';

/** A number before and after; `change` is after − before, `relative` that over before (null when before is 0). */
export type Change = {
  before: number | null;
  after: number | null;
  change: number | null;
  relative: number | null;
};

/** One tool's numbers against the baseline, and the error codes that came or went. */
export type ToolDelta = {
  name: string;
  calls: Change;
  errorRate: Change;
  p95Ms: Change;
  resultTokensP95: Change;
  schemaTokens: Change;
  codesAppeared: string[];
  codesDisappeared: string[];
};

/** A tool whose newest contract has another schema hash than the baseline's. */
export type ContractChange = {
  tool: string;
  before: { version: string; schemaHash: string };
  after: { version: string; schemaHash: string };
  /** false: the schema changed under the same declared version. */
  versionChanged: boolean;
  /** The changed paths (`output.snippet: added`), or null when neither side's schemas are known. */
  paths: string[] | null;
  /** Where the paths came from: the catalog of this run's source, or the schemas the baseline carries. */
  pathsFrom: 'catalog' | 'baseline' | null;
};

/** Everything that changed against the baseline. */
export type Delta = {
  baseline: { file: string; formatVersion: number };
  /** Tools present in both, in this run's order. */
  tools: ToolDelta[];
  toolsAdded: string[];
  toolsGone: string[];
  /** null when the baseline lists no contracts (a report older than the catalog). */
  contractsChanged: ContractChange[] | null;
  newFlags: Flag[];
  /** Baseline flags that this run no longer has. */
  flagsGone: number;
};

// Six decimals: a change of 0.844 ms should not read 0.8440000000000001 in the JSON.
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The change from `before` to `after`; null parts where either is unknown. */
function change(before: number | null | undefined, after: number | null): Change {
  const b = before ?? null;
  if (b === null || after === null) return { before: b, after, change: null, relative: null };
  return {
    before: b,
    after,
    change: round(after - b),
    relative: b === 0 ? null : round((after - b) / b),
  };
}

function toolDelta(b: BaselineTool, t: ToolStats): ToolDelta {
  const before = Object.keys(b.codes);
  const after = Object.keys(t.codes);
  return {
    name: t.name,
    calls: change(b.calls, t.calls),
    errorRate: change(b.errorRate, t.errorRate),
    p95Ms: change(b.p95Ms, t.p95Ms),
    resultTokensP95: change(b.resultTokensP95, t.resultTokensP95),
    schemaTokens: change(b.schemaTokens, t.schemaTokens),
    codesAppeared: after.filter((c) => !before.includes(c)).sort(),
    codesDisappeared: before.filter((c) => !after.includes(c)).sort(),
  };
}

/** Asks the catalog of this run's source what changed between two of a tool's contracts. */
export type ContractDiffer = (
  tool: string,
  from: string,
  to: string,
) => Promise<SchemaChange[] | null>;

async function contractChanges(
  baseline: Baseline,
  current: ReportData,
  catalogDiff: ContractDiffer,
): Promise<ContractChange[] | null> {
  if (baseline.contracts === null) return null;
  const out: ContractChange[] = [];
  const sorted = [...current.contracts].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const now of sorted) {
    const was = baseline.contracts.find((c) => c.name === now.name);
    if (!was || was.schemaHash === now.schemaHash) continue;
    let changes = await catalogDiff(now.name, was.schemaHash, now.schemaHash);
    let pathsFrom: ContractChange['pathsFrom'] = changes ? 'catalog' : null;
    if (!changes) {
      const a = baseline.contractSchemas.find(
        (c) => c.name === now.name && c.schemaHash === was.schemaHash,
      );
      const b = current.contractSchemas.find(
        (c) => c.name === now.name && c.schemaHash === now.schemaHash,
      );
      if (a && b) {
        changes = diffContracts(a, b);
        pathsFrom = 'baseline';
      }
    }
    out.push({
      tool: now.name,
      before: { version: was.version, schemaHash: was.schemaHash },
      after: { version: now.version, schemaHash: now.schemaHash },
      versionChanged: was.version !== now.version,
      paths: changes ? describeChanges(changes, 20) : null,
      pathsFrom,
    });
  }
  return out;
}

/** Compares this run with the baseline; `catalogDiff` asks this run's source for a contract diff. */
export async function compare(
  baseline: Baseline,
  current: ReportData,
  catalogDiff: ContractDiffer,
): Promise<Delta> {
  const before = new Map(baseline.tools.map((t) => [t.name, t]));
  const names = new Set(current.tools.map((t) => t.name));
  const tools: ToolDelta[] = [];
  const toolsAdded: string[] = [];
  for (const t of current.tools) {
    const b = before.get(t.name);
    if (b) tools.push(toolDelta(b, t));
    else toolsAdded.push(t.name);
  }
  const fresh = newFlags(current.flags, baseline.flags);
  return {
    baseline: { file: baseline.file, formatVersion: baseline.formatVersion },
    tools,
    toolsAdded,
    toolsGone: baseline.tools.filter((t) => !names.has(t.name)).map((t) => t.name),
    contractsChanged: await contractChanges(baseline, current, catalogDiff),
    newFlags: fresh,
    flagsGone: newFlags(baseline.flags, current.flags).length,
  };
}

/** The baseline restricted to the tools a `--tool` filter keeps, as the run is. */
export function onlyTools(baseline: Baseline, only: Set<string>): Baseline {
  if (only.size === 0) return baseline;
  return {
    ...baseline,
    tools: baseline.tools.filter((t) => only.has(t.name)),
    flags: baseline.flags.filter((f) => only.has(f.tool)),
    contracts: baseline.contracts?.filter((c) => only.has(c.name)) ?? null,
  };
}
