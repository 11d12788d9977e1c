// `pnpm bench:instrument` (second part): what measuring a result costs, against the cheapest way to get
// its bytes alone, `Buffer.byteLength(JSON.stringify(result))`, in the same run. measureJson also counts the
// approximate tokens, and builds no string. Prints numbers; asserts nothing.
import { measureJson } from '../src/output-size.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

/** The envelope of bench:instrument's get_order call. */
const small = {
  ok: true,
  data: { found: true, customerId: 'cus_1', orders: [{ id: 'ord_1', status: 'paid' }] },
  attempt: 1,
};
/** A listing of about 18 KB, as test/e2e/context-cost sends. */
const listing = {
  ok: true,
  data: {
    items: Array.from({ length: 200 }, (_, i) => ({
      sku: `sku-${String(i).padStart(5, '0')}`,
      name: `Catalogue item number ${i} with a name`,
      price: Math.round(i * 13.7 * 100) / 100,
      stock: i % 17,
    })),
  },
  attempt: 1,
};

let sink = 0;
function perCall(fn: () => number, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += fn();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number) => n.toFixed(2).padStart(8);

console.log(`\nbench:instrument result size  ${ROUNDS} interleaved rounds, median µs per result`);
for (const [label, value, calls] of [
  ['envelope of get_order', small, 200_000],
  ['listing', listing, 2_000],
] as const) {
  const ours: number[] = [];
  const reference: number[] = [];
  const bytes = Buffer.byteLength(JSON.stringify(value));
  perCall(() => measureJson(value).bytes, calls); // warm-up
  perCall(() => Buffer.byteLength(JSON.stringify(value)), calls);
  for (let r = 0; r < ROUNDS; r++) {
    ours.push(perCall(() => measureJson(value).bytes, calls));
    reference.push(perCall(() => Buffer.byteLength(JSON.stringify(value)), calls));
  }
  const o = median(ours);
  const ref = median(reference);
  console.log(`  ${`${label} (${bytes} B)`.padEnd(34)} measureJson ${fmt(o)} µs`);
  console.log(
    `  ${''.padEnd(34)} JSON.stringify + byteLength ${fmt(ref)} µs   ratio ${fmt(o / ref)}`,
  );
}
if (sink === 0) console.log('(nothing measured)');
