// `pnpm --filter @toolscope/instrument bench:redact`: what the secret rules cost the payload redactor. Today's
// createRedactor and redactString against the redactor before issue 48 (its redact.ts read from git at
// BASELINE_REV, default 443c016, into a temporary folder), interleaved in the same run, in CPU time. Prints
// ratios with the load average; asserts nothing. The collector's side: packages/collector/bench/scrub.bench.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedactor, redactString } from '../src/redact.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const REV = process.env.BASELINE_REV ?? '443c016';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Before = {
  createRedactor: (o: object, tree: undefined) => (v: unknown) => string;
  redactString: (text: string, max: number) => string;
};

/** The redactor as it was at REV, importable: its file and the one module it needs at run time. */
async function loadBefore(): Promise<{ before: Before; dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'redact-before-'));
  for (const file of ['redact.ts', 'set-own.ts']) {
    const text = execFileSync('git', ['show', `${REV}:packages/instrument/src/${file}`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    writeFileSync(join(dir, file), text);
  }
  const before = (await import(join(dir, 'redact.ts'))) as Before;
  return { before, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

const sentence =
  'Order 4471 for customer cus_1 shipped from Lisbon on Tuesday; the courier said the parcel is at the depot.';
const listing = {
  items: Array.from({ length: 200 }, (_, i) => ({
    sku: `sku-${String(i).padStart(5, '0')}`,
    name: `Catalogue item number ${i} with a name`,
    price: Math.round(i * 13.7 * 100) / 100,
    stock: i % 17,
  })),
};
const getOrder = { found: true, customerId: 'cus_1', orders: [{ id: 'ord_1', status: 'paid' }] };
const textResult = { content: [{ type: 'text', text: JSON.stringify(listing).slice(0, 4000) }] };
let sink = 0;
/** CPU µs (user and system) per call: steadier than the clock on a machine others load. */
function perCall(fn: () => unknown, calls: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) if (fn() !== undefined) sink++;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number) => n.toFixed(2).padStart(8);

const { before, dispose } = await loadBefore();
const now = createRedactor({}, undefined);
const then = before.createRedactor({}, undefined);
const cases: ReadonlyArray<readonly [string, () => unknown, () => unknown, number]> = [
  [
    'short string',
    () => redactString('Lisbon', 256),
    () => before.redactString('Lisbon', 256),
    400_000,
  ],
  [
    'sentence (106 chars)',
    () => redactString(sentence, 256),
    () => before.redactString(sentence, 256),
    100_000,
  ],
  ['get_order result', () => now(getOrder), () => then(getOrder), 50_000],
  ['listing (200 items)', () => now(listing), () => then(listing), 300],
  ['4 KB text result', () => now(textResult), () => then(textResult), 2_000],
];

console.log(
  `\nbench:redact  ${ROUNDS} interleaved rounds, median CPU µs per call, baseline ${REV}`,
);
for (const [label, ours, ref, calls] of cases) {
  perCall(ours, calls);
  perCall(ref, calls);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(perCall(ours, calls));
    b.push(perCall(ref, calls));
  }
  const [load] = loadavg();
  console.log(
    `  ${label.padEnd(22)} now ${fmt(median(a))}  before ${fmt(median(b))}  ratio ${fmt(median(a) / median(b))}   load ${load?.toFixed(2)}`,
  );
}

dispose();
if (sink === 0) console.log('(nothing measured)');
