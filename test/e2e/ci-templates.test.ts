// No CI service is reachable here, so this runs the GitHub composite action (action.yml) and the GitLab template
// (ci/gitlab/toolscope.yml) as their runners would: YAML parsed, inputs and variables substituted, each shell step
// run with bash against the real toolscope CLI (the project's node_modules/.bin/toolscope), twice, main's report
// then a pull request's against it. GitLab's artifact download goes to a local server that checks the job token.
// The workflow and the include shown in docs/ci.md are checked against the files they use.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { builtCli, builtProgram } from '../../packages/collector/test/built.js';
import { ROOT } from './processes.js';

const HASH_KEY = 'ci-templates-test-key-0123456789';
/** The team's test command: a program as plain JavaScript against the built packages (built.ts), no loader. */
const PROGRAM = `${JSON.stringify(process.execPath)} ${JSON.stringify(builtProgram(`${ROOT}packages/collector/test/fixtures/baseline-program.ts`))}`;
/**
 * A job run starts up to four processes in turn (the CLI three times, the program once); the whole file took
 * 38 s with the 2-core machine's load at 8 and 97 s at 9 to 13. The limit only stops a hung run.
 */
const RUN_MS = 150_000;

const actionSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputs: z.record(
    z.string(),
    z.object({ description: z.string(), required: z.boolean(), default: z.string().optional() }),
  ),
  outputs: z.record(z.string(), z.object({ description: z.string(), value: z.string() })),
  runs: z.object({
    using: z.literal('composite'),
    steps: z.array(
      z.object({
        name: z.string(),
        id: z.string().optional(),
        shell: z.literal('bash'),
        env: z.record(z.string(), z.string()).optional(),
        run: z.string(),
      }),
    ),
  }),
});
const gitlabSchema = z.object({
  '.toolscope': z.object({
    image: z.string(),
    variables: z.record(z.string(), z.string()),
    script: z.array(z.string()),
    artifacts: z.object({
      when: z.literal('always'),
      paths: z.array(z.string()),
      reports: z.object({ junit: z.string() }),
    }),
  }),
});
const action = actionSchema.parse(parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')));
const gitlab = gitlabSchema.parse(
  parse(readFileSync(join(ROOT, 'ci/gitlab/toolscope.yml'), 'utf8')),
)['.toolscope'];

/** The first YAML block under a heading of docs/ci.md. */
function docsBlock(heading: string): unknown {
  const doc = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
  const section = doc.slice(doc.indexOf(`## ${heading}\n`));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`docs/ci.md has no yaml block under "${heading}"`);
  return parse(block);
}
const stepSchema = z.object({
  name: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  with: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
const workflow = z
  .object({ jobs: z.record(z.string(), z.object({ steps: z.array(stepSchema) })) })
  .parse(docsBlock('GitHub Actions'));
const steps = Object.values(workflow.jobs)[0]?.steps ?? [];
const usesStep = (prefix: string) => {
  const s = steps.find((x) => x.uses?.startsWith(prefix));
  if (!s?.with) throw new Error(`the workflow in docs/ci.md has no ${prefix} step with inputs`);
  return s.with;
};
const ours = steps.find((s) => s.name === 'Toolscope')?.with ?? {};
/** The baseline path the workflow gives on pull requests (its input is an expression, empty on main). */
const prBaseline = /'([^']+\.json)'/.exec(String(ours.baseline))?.[1] ?? '';
const include = z
  .object({
    toolscope: z.object({
      extends: z.literal('.toolscope'),
      variables: z.record(z.string(), z.string()),
    }),
  })
  .parse(docsBlock('GitLab CI'));

const work = mkdtempSync(join(tmpdir(), 'toolscope-ci-templates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A project folder whose node_modules/.bin/toolscope is the CLI of this workspace as a project installs it:
 * built JavaScript (built.ts), which starts with a third of the CPU tsx takes to run it from sources; the jobs
 * start it 14 times.
 */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  const bin = join(dir, 'node_modules/.bin/toolscope');
  writeFileSync(
    bin,
    `#!/bin/sh\nexec ${builtCli()
      .map((a) => JSON.stringify(a))
      .join(' ')} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return dir;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Runs the action's steps as the runner does: inputs substituted, GITHUB_* files, GITHUB_PATH honoured. */
async function runAction(cwd: string, inputs: Record<string, string>, env: NodeJS.ProcessEnv) {
  for (const name of Object.keys(inputs)) expect(Object.keys(action.inputs)).toContain(name);
  const runner = mkdtempSync(join(work, 'runner-'));
  const files = Object.fromEntries(
    ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_PATH', 'GITHUB_ENV'].map((k) => {
      writeFileSync(join(runner, k), '');
      return [k, join(runner, k)];
    }),
  );
  const value = (name: string) => inputs[name] ?? action.inputs[name]?.default ?? '';
  const substitute = (text: string) => {
    const out = text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => value(name));
    expect(out, 'an expression the test does not know').not.toContain('${{');
    return out;
  };
  let last = { code: 0, output: '' };
  for (const step of action.runs.steps) {
    const added = readFileSync(files.GITHUB_PATH as string, 'utf8')
      .split('\n')
      .filter(Boolean);
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v)]),
    );
    last = await bash(substitute(step.run), cwd, {
      ...process.env,
      ...env,
      ...stepEnv,
      ...files,
      RUNNER_TEMP: runner,
      PATH: [...added.reverse(), process.env.PATH].join(':'),
    });
    if (last.code !== 0) break;
  }
  const outputs = Object.fromEntries(
    readFileSync(files.GITHUB_OUTPUT as string, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=') as [string, string]),
  );
  return { ...last, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY as string, 'utf8') };
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const count = (text: string, part: string) => text.split(part).length - 1;
const ruleIds = (sarif: string) =>
  (JSON.parse(sarif) as { runs: { results: { ruleId: string }[] }[] }).runs[0]?.results.map(
    (r) => r.ruleId,
  ) ?? [];
const failures = (junit: string) => Number(/<testsuites [^>]*failures="(\d+)"/.exec(junit)?.[1]);

let mainReport = '';

describe('the GitHub composite action', () => {
  it('matches the workflow in docs/ci.md: its inputs, the artifact it uploads and downloads, the SARIF file', () => {
    for (const name of Object.keys(ours)) expect(Object.keys(action.inputs)).toContain(name);
    expect(action.outputs['exit-code']?.value).toMatch(
      /^\$\{\{ steps\.report\.outputs\.exit-code \}\}$/,
    );
    expect(action.runs.steps.find((s) => s.id === 'report')?.run).toContain('"exit-code=$code"');
    const upload = usesStep('actions/upload-artifact');
    expect(upload.path).toBe(action.inputs.json?.default);
    expect(String(ours.baseline)).toContain("github.event_name == 'pull_request'");
    expect(basename(prBaseline)).toBe(upload.path);
    const download = steps.find((s) => s.name === "Download main's report")?.run ?? '';
    expect(download).toContain(`--name ${upload.name}`);
    expect(download).toContain(`--dir ${dirname(prBaseline)}`);
    expect(usesStep('github/codeql-action/upload-sarif').sarif_file).toBe(
      action.inputs.sarif?.default,
    );
  });

  it(
    "on main writes the run's JSON, SARIF and JUnit and the job summary; on a pull request fails on what got worse",
    async () => {
      const main = project('gh-main');
      const first = await runAction(
        main,
        { command: PROGRAM },
        { BASELINE_RUN: 'main', TOOLSCOPE_HASH_KEY: HASH_KEY },
      );
      expect(first.code, first.output).toBe(0);
      expect(first.outputs['exit-code']).toBe('0');
      mainReport = read(main, 'toolscope-report.json');
      expect(JSON.parse(mainReport)).toMatchObject({ formatVersion: 2, passed: true });
      expect(ruleIds(read(main, 'toolscope.sarif')).sort()).toEqual([
        'identical_retry',
        'retry_after_non_retryable',
      ]);
      expect(failures(read(main, 'toolscope-junit.xml'))).toBe(0);
      expect(count(first.summary, '## Toolscope report')).toBe(1);

      const pr = project('gh-pr');
      mkdirSync(join(pr, 'baseline'));
      writeFileSync(join(pr, prBaseline), mainReport);
      const second = await runAction(
        pr,
        { command: PROGRAM, baseline: prBaseline, thresholds: String(ours.thresholds) },
        { BASELINE_RUN: 'pr', TOOLSCOPE_HASH_KEY: HASH_KEY },
      );
      expect(second.code, second.output).toBe(1);
      expect(second.outputs['exit-code']).toBe('1');
      // One summary: the SARIF and JUnit renderings do not add theirs.
      expect(
        count(second.summary, '### Against the baseline (baseline/toolscope-report.json)'),
      ).toBe(1);
      // p95 rises of sub-millisecond tools vary from run to run; get_order's (5 ms to 400 ms) always counts.
      expect(new Set(ruleIds(read(pr, 'toolscope.sarif')))).toEqual(
        new Set([
          'fail-on-contract-change',
          'identical_retry',
          'max-error-rate-increase',
          'max-p95-increase',
          'retry_after_non_retryable',
        ]),
      );
      expect(failures(read(pr, 'toolscope-junit.xml'))).toBeGreaterThanOrEqual(4);
      expect(JSON.parse(read(pr, 'toolscope-report.json')).baseline.newFlags).toHaveLength(2);
    },
    2 * RUN_MS,
  );

  it(
    'reports a run alone, with a warning, when the baseline file is missing',
    async () => {
      const dir = project('gh-first');
      const r = await runAction(
        dir,
        { command: 'true', baseline: 'baseline/none.json', thresholds: String(ours.thresholds) },
        {},
      );
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('::warning title=toolscope::no baseline at baseline/none.json');
      expect(r.summary).toContain('No tool calls were recorded.');
      expect(existsSync(join(dir, 'toolscope.sarif'))).toBe(true);
    },
    RUN_MS,
  );
});

describe('the GitLab template', () => {
  let server: Server;
  let api = '';
  const tokens: string[] = [];
  beforeAll(async () => {
    // GitLab's "download a single artifact file by reference name" route, as the template calls it.
    server = createServer((req, res) => {
      tokens.push(String(req.headers['job-token']));
      const ok =
        req.url ===
        '/api/v4/projects/42/jobs/artifacts/main/raw/toolscope-report.json?job=toolscope';
      if (ok && req.headers['job-token'] === 'job-token-1' && mainReport) res.end(mainReport);
      else res.writeHead(404).end('{"message":"404 Not Found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const runJob = (cwd: string, variables: Record<string, string>) => {
    for (const name of Object.keys(include.toolscope.variables))
      expect(Object.keys(gitlab.variables)).toContain(name);
    return bash(gitlab.script.join('\n'), cwd, {
      ...process.env,
      ...gitlab.variables,
      ...include.toolscope.variables,
      CI_COMMIT_REF_NAME: 'feature',
      CI_DEFAULT_BRANCH: 'main',
      CI_API_V4_URL: api,
      CI_PROJECT_ID: '42',
      TOOLSCOPE_HASH_KEY: HASH_KEY,
      ...variables,
    });
  };

  it(
    "compares a merge request with the default branch's report, fetched with the job token",
    async () => {
      expect(mainReport, 'the GitHub test wrote main’s report first').not.toBe('');
      const dir = project('gl-mr');
      const r = await runJob(dir, {
        TOOLSCOPE_COMMAND: PROGRAM,
        BASELINE_RUN: 'pr',
        CI_JOB_TOKEN: 'job-token-1',
      });
      expect(r.code, r.output).toBe(1);
      expect(tokens).toEqual(['job-token-1']);
      for (const file of [...gitlab.artifacts.paths, gitlab.artifacts.reports.junit])
        expect(existsSync(join(dir, file)), file).toBe(true);
      const report = JSON.parse(read(dir, 'toolscope-report.json'));
      expect(report.baseline.baseline).toEqual({
        file: 'toolscope-baseline.json',
        formatVersion: 2,
      });
      expect(failures(read(dir, gitlab.artifacts.reports.junit))).toBeGreaterThanOrEqual(3);
      expect(read(dir, 'toolscope-report.md')).toContain('### Against the baseline');
      expect(r.output).toContain('#### New flags (2)');
    },
    RUN_MS,
  );

  it(
    'reports alone when the default branch has no report to fetch',
    async () => {
      const dir = project('gl-first');
      const r = await runJob(dir, { TOOLSCOPE_COMMAND: 'true', CI_JOB_TOKEN: 'another' });
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('no report of main to compare with');
      expect(existsSync(join(dir, 'toolscope-baseline.json'))).toBe(false);
      expect(JSON.parse(read(dir, 'toolscope-report.json')).baseline).toBeUndefined();
    },
    RUN_MS,
  );
});
