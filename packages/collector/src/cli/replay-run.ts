// What `toolscope replay` does with each case: runs it only when its tool is known safe to repeat (or
// --allow-writes), sends the recorded input, and names what came back against the recording: same, fixed,
// changed, new failure, or "not reproduced" when only a synthesized or redacted value can explain a difference.
import {
  compareOutcome,
  differsByValuesOnly,
  type Expectation,
  type ExpectedOutcome,
  type FixtureCase,
  type FixtureFile,
  meetsExpectation,
  type Observed,
  type ReplayOutcome,
} from '@toolscope/instrument/fixtures';
import type { LiveTool, Session } from './replay-client.js';

export type CaseResult =
  | { kind: 'skipped'; reason: string }
  | { kind: 'not reproduced'; reason: string; observed: Observed }
  | { kind: 'replayed'; outcome: ReplayOutcome; observed: Observed; meets: boolean; said: string };

export type ReplayedCase = {
  file: string;
  tool: string;
  id: string;
  title: string;
  expected: ExpectedOutcome;
  synthesized: boolean;
  result: CaseResult;
};

/**
 * Why a case must not run, or null when it may: a tool known safe to repeat says `readOnlyHint` or
 * `idempotentHint` now, or has a read contract (`effect: 'read'` recorded, unless it now says it is no read-only
 * tool); anything else may write again, and runs only with --allow-writes.
 */
export function skipReason(
  c: FixtureCase,
  live: LiveTool | undefined,
  allowWrites: boolean,
): string | null {
  if (c.input === null) return 'the call recorded neither its input nor its shape';
  if (allowWrites || !live) return null;
  if (live.readOnlyHint === true || live.idempotentHint === true) return null;
  if (live.readOnlyHint === undefined && c.tool.effect === 'read') return null;
  const said = [
    `readOnlyHint ${live.readOnlyHint ?? 'not set'}`,
    `idempotentHint ${live.idempotentHint ?? 'not set'}`,
    `effect ${c.tool.effect ?? 'not recorded'}`,
  ].join(', ');
  return `not known to be safe to repeat (${said}): --allow-writes runs it`;
}

/** Every case of `files` against the session's server. */
export async function replayAll(
  session: Session,
  files: { name: string; fixtures: FixtureFile }[],
  o: { allowWrites: boolean; expect: Expectation },
): Promise<ReplayedCase[]> {
  const out: ReplayedCase[] = [];
  for (const { name, fixtures } of files) {
    for (const c of fixtures.cases) {
      const live = session.tools.get(c.tool.name);
      const base = {
        file: name,
        tool: c.tool.name,
        id: c.id,
        title: c.title,
        expected: c.expected,
        synthesized: c.input?.synthesized === true,
      };
      const skip = skipReason(c, live, o.allowWrites);
      if (skip !== null) {
        out.push({ ...base, result: { kind: 'skipped', reason: skip } });
        continue;
      }
      const got = live
        ? await session.call(c.tool.name, c.input?.value)
        : {
            observed: { ok: false, code: 'UNKNOWN_TOOL', issuePaths: null } as const,
            said: `the server lists no tool ${c.tool.name}`,
          };
      const outcome = compareOutcome(c.expected, got.observed);
      if (live && differsByValuesOnly(c, outcome, live.schemaHash, false)) {
        out.push({
          ...base,
          result: {
            kind: 'not reproduced',
            observed: got.observed,
            reason: `the server's contract is the recorded one, yet the ${c.input?.synthesized ? 'synthesized' : 'redacted'} input came out otherwise: its values differ from the real ones`,
          },
        });
        continue;
      }
      out.push({
        ...base,
        result: {
          kind: 'replayed',
          outcome,
          observed: got.observed,
          meets: meetsExpectation(outcome, c.expected, o.expect),
          said: got.said,
        },
      });
    }
  }
  return out;
}
