// `pnpm --filter @toolscope/instrument bench:redact`: what the secret corpus costs the redactor. Today's
// createRedactor and redactString against the redactor before issue 48 (its redact.ts read from git at
// BASELINE_REV, default 443c016, into a temporary folder), interleaved in the same run; and the collector's
// scrub of a span's attributes. Prints ratios with the load average; asserts nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedactor, redactString } from '../src/redact.js';
import { scrubSecrets } from '../src/scrub.js';

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
/** A span's attributes as the instrument sends them (capture off), what the collector scrubs per span. */
const spanAttributes = {
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'get_order',
  'gen_ai.tool.call.id': 'call_8f3a2b',
  'toolscope.schema.version': '3',
  'toolscope.schema.hash': '9f86d081884c7d65',
  'toolscope.attempt': 1,
  'toolscope.effect': 'read',
  'toolscope.partial_effect': false,
  'toolscope.input.hash': '2c26b46b68ffc68f',
  'toolscope.input.shape': 'customerId:string,includeHistory:boolean',
  'toolscope.output.bytes': 912,
  'toolscope.output.tokens': 228,
  'toolscope.output.hash': 'fcde2b2edba56bf4',
  'mcp.method.name': 'tools/call',
  'mcp.session.id': '6b1c9b0e-2f7d-4a55-9d7e-1b0c5f0e8a11',
  'network.transport': 'pipe',
};

let sink = 0;
function perCall(fn: () => unknown, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) if (fn() !== undefined) sink++;
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
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

console.log(`\nbench:redact  ${ROUNDS} interleaved rounds, median µs per call, baseline ${REV}`);
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

// The collector's scrub of one span's attributes, against a plain copy of them (the least any pass costs).
const scrubAll = () => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spanAttributes)) out[k] = scrubSecrets(v);
  return out;
};
const copyAll = () => ({ ...spanAttributes });
perCall(scrubAll, 50_000);
const s: number[] = [];
const c: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  s.push(perCall(scrubAll, 50_000));
  c.push(perCall(copyAll, 50_000));
}
const [load] = loadavg();
console.log(
  `  ${'span scrub (16 attrs)'.padEnd(22)} scrub ${fmt(median(s))}  copy ${fmt(median(c))}  ratio ${fmt(median(s) / median(c))}   load ${load?.toFixed(2)}`,
);
dispose();
if (sink === 0) console.log('(nothing measured)');
