// What `pnpm demo` prints once the agent is done: each flag the story must cause, with what proves it (the trace,
// or for a flag read from a tool's contract rather than its calls, the tool's page that shows that contract) and
// what the flag says; then where to look: the dashboard while the demo runs, or, after --exit (the collector has
// stopped with it), the command that serves the same database again.
import type { Flag } from '@toolscope/collector/schemas';

export type ExpectedFlag = { kind: string; tool: string };

/**
 * Where the demo ran: its collector's URL, its database and the one `pnpm start` opens (so the summary says
 * `--db` only when they differ), and whether it stops after the summary.
 */
export type DemoPlace = { url: string; db: string; defaultDb: string; exit: boolean };

/** The trace a flag's evidence starts from: its own, or the first it lists (drift flags list several). */
export function proofTrace(flag: Flag): string | undefined {
  return flag.traceId ?? flag.evidence.traceIds?.[0];
}

/**
 * What the summary points to for a flag: the trace that proves it, or, for a flag no call proves (heavy_schema
 * weighs a tools/list entry), the tool's page in the dashboard, whose Contracts section shows the contract and its
 * weight (docs/contracts.md).
 */
export function proofOf(flag: Flag): string {
  const trace = proofTrace(flag);
  return trace ? `trace ${trace}` : `contract #/tools/${encodeURIComponent(flag.tool)}`;
}

export function demoSummary(
  flags: readonly Flag[],
  expected: readonly ExpectedFlag[],
  place: DemoPlace,
): { text: string; missing: number } {
  const lines = [
    'flags, each with the trace that proves it (or the page of the contract that does):',
  ];
  let missing = 0;
  let firstTrace: string | undefined;
  for (const e of expected) {
    const found = flags.find((f) => f.kind === e.kind && f.tool === e.tool);
    firstTrace ??= found && proofTrace(found);
    if (!found) missing++;
    lines.push(
      `  ${found ? '✓' : '✗'} ${e.kind.padEnd(29)} ${e.tool.padEnd(15)} ${found ? proofOf(found) : 'missing'}`,
    );
    if (found) lines.push(`      ${found.summary}`);
  }
  lines.push('');
  const traceHint = firstTrace ? `#/traces/${firstTrace}` : '';
  if (place.exit) {
    const db = place.db === place.defaultDb ? '' : ` --db ${place.db}`;
    lines.push(
      `The demo's collector has stopped with it; the data stays in ${place.db}.`,
      `To look at it again: pnpm start${db}, then open http://127.0.0.1:4318/${traceHint} or search for any trace id above.`,
    );
  } else {
    lines.push(
      `dashboard: ${place.url}/ (the first trace above: ${place.url}/${traceHint})`,
      'Ctrl-C stops the collector; the data stays in the database.',
    );
  }
  return { text: `${lines.join('\n')}\n`, missing };
}
