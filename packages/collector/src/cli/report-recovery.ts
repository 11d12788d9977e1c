// `report`'s recovery section (docs/recovery.md): what agents did after each tool's failed calls, read from a
// store (the same reading as GET /api/recovery) or from a collector's API, and its Markdown table per tool.
import { recoveryOverviewOf } from '../api/recovery-page.js';
import { type RecoveryResponse, recoveryResponseSchema } from '../api/recovery-schemas.js';
import { readRecovery } from '../detection/read-recovery.js';
import { formatPercent } from '../format.js';
import type { RecoveryReader } from '../storage/contract.js';
import { cell } from './markdown-cell.js';

export type ReportRecovery = RecoveryResponse;

export async function storeRecovery(
  reader: RecoveryReader,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ReportRecovery> {
  return recoveryOverviewOf(await readRecovery(reader, sinceNs, untilNs), { sinceNs, untilNs });
}

/** From a collector's GET /api/recovery (`get` answers a path's JSON body, or null for a 404). */
export async function apiRecovery(
  get: (path: string) => Promise<unknown>,
  since: string,
): Promise<ReportRecovery | null> {
  const body = await get(`/api/recovery?since=${since}`);
  // A collector older than recovery answers 404: the report then has no recovery section.
  if (body === null) return null;
  const parsed = recoveryResponseSchema.safeParse(body);
  if (!parsed.success)
    throw new Error('the collector did not answer GET /api/recovery with its shape');
  return parsed.data;
}

/** The recovery of the tools a report keeps. */
export function recoveryOfTools(
  r: ReportRecovery | null,
  keep: (tool: string) => boolean,
): ReportRecovery | null {
  return r && { ...r, tools: r.tools.filter((t) => keep(t.tool)) };
}

const rate = (r: number | null) => (r === null ? '–' : formatPercent(r));

/** The Markdown section: one table per tool with failures, a row per code. */
export function recoveryMarkdown(r: ReportRecovery | null): string[] {
  if (!r || r.tools.length === 0) return [];
  const lines = ['', '### What agents did after failed calls', ''];
  if (r.limited)
    lines.push(`The newest ${r.failures} of ${r.failuresInRange} failures are counted.`, '');
  for (const t of r.tools) {
    lines.push(
      `**${cell(t.tool)}**: ${t.failures} failure${t.failures === 1 ? '' : 's'}, repair rate ${rate(t.repairRate)}, recovered ${rate(t.recoveredRate)}`,
      '',
      '| code | failures | repaired | failed again | repeated | switched | gave up | repair rate |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...t.byCode.map((c) => {
        const o = c.outcomes;
        return `| ${cell(c.code)} | ${c.failures} | ${o.repaired} | ${o.failed_again} | ${o.repeated} | ${o.switched} | ${o.gave_up} | ${rate(c.repairRate)} |`;
      }),
      '',
    );
  }
  return lines.slice(0, -1);
}
