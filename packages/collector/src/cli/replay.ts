// `toolscope replay FIXTURES…`: the recorded calls of fixture files sent again to a live MCP server, through a
// real MCP client over stdio (--server "<command>") or Streamable HTTP (--url), each case named same, fixed,
// changed or new failure (docs/replay.md). Exit codes as `report`'s: 0 every replayed case met --expect, 1 one
// did not, 2 usage, file or connection error.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXPECTATIONS, type FixtureFile, parseFixtures } from '@toolscope/instrument/fixtures';
import { z } from 'zod';
import type { CliIo } from './io.js';
import { openSession, type Session, type Target } from './replay-client.js';
import { json, junit, markdown, type ReplayReport, sarif } from './replay-format.js';
import { replayAll } from './replay-run.js';

export const REPLAY_USAGE = `Usage: toolscope replay FIXTURES… (--server "<command>" | --url URL) [options]

Sends the recorded input of every case of the fixture files (from \`toolscope fixtures\`) to a live MCP server
and compares each answer with the recording: same, fixed, changed (another code or other paths) or new failure.
Only tools known safe to repeat run: readOnlyHint or idempotentHint in their annotations, or a read contract.

Options:
  --server COMMAND       start this MCP server over stdio (a shell command line, in quotes)
  --url URL              or connect to this Streamable HTTP endpoint
  --allow-writes         also run tools that may write (each case then repeats its write)
  --expect WHAT          recorded (default): every case as recorded; fixed: every recorded failure gone
  --format FORMAT        markdown (default), json, junit or sarif
  --output FILE          write the result to FILE instead of stdout
  -h, --help             show this help

Exit codes: 0 every replayed case met --expect (skipped ones do not count), 1 a case did not, 2 usage, file or
connection error.
`;

const flagsSchema = z
  .object({
    server: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    'allow-writes': z.boolean().default(false),
    expect: z.enum(EXPECTATIONS).default('recorded'),
    format: z.enum(['markdown', 'json', 'junit', 'sarif']).default('markdown'),
    output: z.string().min(1).optional(),
  })
  .refine((f) => (f.server === undefined) !== (f.url === undefined), {
    message: 'give the server: --server "<command>" or --url URL',
    path: ['server'],
  });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function replay(argv: string[], io: CliIo): Promise<number> {
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        server: { type: 'string' },
        url: { type: 'string' },
        'allow-writes': { type: 'boolean' },
        expect: { type: 'string' },
        format: { type: 'string' },
        output: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.err(`toolscope replay: ${messageOf(error)}\n\n${REPLAY_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(REPLAY_USAGE);
    return 0;
  }
  const { help: _h, ...rest } = values;
  const parsed = flagsSchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    io.err(`toolscope replay: --${issue?.path.join('.') || 'options'}: ${issue?.message}\n`);
    return 2;
  }
  const f = parsed.data;
  if (positionals.length === 0) {
    io.err(`toolscope replay: name the fixture files to replay\n\n${REPLAY_USAGE}`);
    return 2;
  }
  const files: { name: string; fixtures: FixtureFile }[] = [];
  for (const name of positionals) {
    try {
      files.push({ name, fixtures: parseFixtures(readFileSync(name, 'utf8'), name) });
    } catch (error) {
      io.err(`toolscope replay: ${messageOf(error)}\n`);
      return 2;
    }
  }
  const target: Target = f.server !== undefined ? { server: f.server } : { url: f.url as string };
  let session: Session;
  try {
    session = await openSession(target);
  } catch (error) {
    io.err(`toolscope replay: cannot connect to ${f.server ?? f.url}: ${messageOf(error)}\n`);
    return 2;
  }
  let report: ReplayReport;
  try {
    const cases = await replayAll(session, files, {
      allowWrites: f['allow-writes'],
      expect: f.expect,
    });
    const passed = cases.every((c) => c.result.kind !== 'replayed' || c.result.meets);
    report = { target: f.server ?? f.url ?? '', expect: f.expect, cases, passed };
  } catch (error) {
    io.err(`toolscope replay: the server failed during the replay: ${messageOf(error)}\n`);
    return 2;
  } finally {
    // The replay's outcome is already decided (its report, or the failure printed above); a close that fails
    // means the server is gone, which leaves nothing to release or report.
    await session.close().catch(() => undefined);
  }
  const render = { markdown, json, junit, sarif }[f.format];
  const text = render(report);
  if (f.output) {
    try {
      writeFileSync(f.output, text);
    } catch (error) {
      io.err(`toolscope replay: cannot write ${f.output}: ${messageOf(error)}\n`);
      return 2;
    }
  } else io.out(text);
  return report.passed ? 0 : 1;
}
