// The instrument, proxy and collector packages laid out as they install (package.json, dist/, bin/, worker/, the
// dashboard beside them), transpiled from this checkout's sources once per source hash into a temporary folder.
// Tests that start `toolscope` as a process of its own many times run it from here: a start under tsx took
// 1.8–2.4 s of CPU (its loader hooks resolve every module, in every worker thread too), the same start from
// JavaScript 0.8 s. esbuild (tsx's own transpiler, so the code is what tsx would run) writes each source file
// as one JavaScript file, no bundling, so every `import.meta.url` path (the worker entry, the dashboard folder)
// is where the built package has it. Never a tracked file: the folder is in the system's temporary directory.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['instrument', 'proxy', 'collector'] as const;
/** What a package ships besides dist/ (package.json's "files"), copied as they are. */
const SHIPPED = ['package.json', 'bin', 'worker'];
/** Raised when the layout this file writes changes, so an older folder is not reused. */
const LAYOUT = 3;

const sourceFile = (f: string) => f.endsWith('.ts') && !/\.test\.ts$|(^|\/)test-[^/]*\.ts$/.test(f);

function sourceHash(): string {
  // The checkout and its lockfile too: the dependencies are links into this checkout's node_modules.
  const hash = createHash('sha256')
    .update(`layout ${LAYOUT}\n${ROOT}\n`)
    .update(readFileSync(join(ROOT, 'pnpm-lock.yaml')));
  for (const pkg of PACKAGES) {
    const dir = join(ROOT, 'packages', pkg);
    const files = [
      ...readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
        .filter(sourceFile)
        .map((f) => `src/${f}`),
      ...SHIPPED.flatMap((s) =>
        !existsSync(join(dir, s))
          ? []
          : s.includes('.')
            ? [s]
            : readdirSync(join(dir, s), { recursive: true, encoding: 'utf8' }).map(
                (f) => `${s}/${f}`,
              ),
      ),
    ].sort();
    for (const f of files) hash.update(`${pkg}/${f}\0`).update(readFileSync(join(dir, f)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** A node_modules of links: the package's own dependencies, its @toolscope ones pointing at the built ones. */
function linkDependencies(pkg: string, out: string): void {
  const real = join(ROOT, 'packages', pkg, 'node_modules');
  const linked = join(out, 'packages', pkg, 'node_modules');
  for (const entry of readdirSync(real)) {
    if (entry === '.bin' || entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(join(real, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of names) {
      mkdirSync(join(linked, name, '..'), { recursive: true });
      const own = /^@toolscope\/(instrument|proxy|collector)$/.exec(name)?.[1];
      // The built packages by relative links, so the folder can be renamed once complete.
      symlinkSync(
        own
          ? relative(join(linked, name, '..'), join(out, 'packages', own))
          : realpathSync(join(real, name)),
        join(linked, name),
      );
    }
  }
}

/**
 * The package.json's exports without the `@toolscope/source` condition: a process that runs with it (vitest's
 * workers do) and starts a storage thread from here (built-workers.ts) passes it on to the thread, whose
 * imports of the other packages must still find their built files, as an installed package's do.
 */
function withoutSourceCondition(file: string): void {
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { exports?: Record<string, unknown> };
  for (const target of Object.values(pkg.exports ?? {}))
    if (typeof target === 'object' && target !== null)
      Reflect.deleteProperty(target, '@toolscope/source');
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

/**
 * esbuild is tsx's dependency, not one of the workspace's: found from where tsx is (by require, which the module
 * runner of vitest's global setup has; it has no import.meta.resolve).
 */
function esbuildOf(): { buildSync(options: Record<string, unknown>): unknown } {
  const fromRoot = createRequire(join(ROOT, 'package.json'));
  return createRequire(fromRoot.resolve('tsx'))('esbuild') as {
    buildSync(options: Record<string, unknown>): unknown;
  };
}

function build(out: string): void {
  const esbuild = esbuildOf();
  for (const pkg of PACKAGES) {
    const dir = join(ROOT, 'packages', pkg);
    const target = join(out, 'packages', pkg);
    esbuild.buildSync({
      entryPoints: readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
        .filter(sourceFile)
        .map((f) => join(dir, 'src', f)),
      outdir: join(target, 'dist'),
      outbase: join(dir, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'error',
    });
    for (const s of SHIPPED)
      if (existsSync(join(dir, s))) cpSync(join(dir, s), join(target, s), { recursive: true });
    withoutSourceCondition(join(target, 'package.json'));
    linkDependencies(pkg, out);
  }
  // The dashboard `pnpm build:dashboard` wrote (the test command builds it first), served from where it is.
  symlinkSync(
    join(ROOT, 'packages/collector/dashboard'),
    join(out, 'packages/collector/dashboard'),
  );
  writeFileSync(join(out, 'complete'), '');
}

let cached: string | undefined;

/**
 * The folder of the built packages (`packages/<name>/` inside it), built on first use in a run. Two test files
 * asking at once each build into a folder of their own and the first rename wins.
 */
export function builtPackages(): string {
  if (cached) return cached;
  const out = join(tmpdir(), `toolscope-built-${sourceHash()}`);
  if (!existsSync(join(out, 'complete'))) {
    const draft = `${out}.${process.pid}`;
    build(draft);
    try {
      renameSync(draft, out);
    } catch {
      // Another process finished first: its folder is the same build; this one goes, not waited for.
      spawn('rm', ['-rf', draft], { detached: true, stdio: 'ignore' }).unref();
    }
  }
  cached = out;
  return out;
}

/** The `toolscope` command as `npm install` leaves it: node and the package's bin/toolscope.js. */
export function builtCli(): string[] {
  return [process.execPath, join(builtPackages(), 'packages/collector/bin/toolscope.js')];
}

/**
 * A test's own program (a `.ts` file under packages/<name>/ that imports packages and its own relative files),
 * bundled by esbuild without its packages into the built package's folder beside its dist/, so that its
 * `@toolscope/*` imports find the built packages and the rest the package's own dependencies, as a user's program
 * runs against the installed packages. Started with plain `node`: under `node --import tsx` a start cost about
 * 1 s of CPU more (docs/decisions/0062). Named by a hash of what was written; never a tracked file.
 */
export function builtProgram(file: string): string {
  const [, pkg, path] = /^packages\/([^/]+)\/(.+)\.ts$/.exec(relative(ROOT, file)) ?? [];
  if (!pkg || !path || !PACKAGES.some((p) => p === pkg))
    throw new Error(`builtProgram: ${file} is not a .ts file in one of ${PACKAGES.join(', ')}`);
  const base = join(builtPackages(), 'packages', pkg, path);
  const draft = `${base}.${process.pid}.mjs`;
  esbuildOf().buildSync({
    entryPoints: [file],
    outfile: draft,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  const out = `${base}-${createHash('sha256').update(readFileSync(draft)).digest('hex').slice(0, 12)}.mjs`;
  // A test file building the same program at the same time wrote the same text: the last rename wins.
  renameSync(draft, out);
  return out;
}
