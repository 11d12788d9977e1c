// `tsx --conditions=@toolscope/source bench/pg-write-ab.bench.ts --base /path/to/other/checkout [--in-flight N]`
// (with TOOLSCOPE_TEST_PG, e.g. through scripts/with-postgres.sh): this checkout's PostgreSQL write path (decode,
// planWrite, the transaction) against another checkout's, in one process, batch by batch (or N batches at once),
// alternating which goes first, each into a fresh database of the same server. Prints the CPU of this process
// per span for each (the server's own excluded) and the difference: an A/B of the collector's work on
// PostgreSQL that the drift of a shared machine's load hits alike, which end-to-end runs of a few minutes apart
// do not (decision 0030). Since the writer runs on a thread of its own (decision 0064), the side given as --base
// comes out 19-20 us per span cheaper with the same code on both sides (3 December 2026): run it from each
// checkout against the other and take half the difference of the two differences (decision 0068).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Storage } from '../src/storage/contract.js';
import { dropPgDatabase, freshPgDatabase } from '../test/backends.js';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string' },
    traces: { type: 'string' },
    'in-flight': { type: 'string' },
  },
});
if (!args.base) throw new Error('--base /path/to/another/checkout is required');
if (!process.env.TOOLSCOPE_TEST_PG)
  throw new Error('TOOLSCOPE_TEST_PG is not set (run through scripts/with-postgres.sh)');
const ROUNDS = Number(args.rounds ?? 2);
const TRACES = Number(args.traces ?? 12_500); // 8 spans each
// Batches each side writes at once (as `serve` does under concurrent exporters): what a batch keeps alive while
// it waits for the database is then what the garbage collector copies.
const IN_FLIGHT = Number(args['in-flight'] ?? 1);

type Decoded = { ok: true; batch: { spans: unknown[] } } | { ok: false; message: string };
type Tree = {
  decode: (body: Uint8Array) => Decoded;
  open: (url: string, options: { poolSize: number; mergeRollups: boolean }) => Promise<Storage>;
  /** Writes decoded spans as the tree's collector does: processed first where it has the stage. */
  write: (store: Storage, spans: unknown[]) => Promise<unknown>;
};
// Each checkout's own modules, so each side runs its own code; the spans come from this checkout's generator.
async function tree(root: string): Promise<Tree> {
  const src = `${root}/packages/collector/src`;
  const open = (await import(`${src}/storage/postgres/pg-storage.ts`)).openPostgresStorage;
  // Trees before the stages (docs/decisions/0037) take decoded spans; later ones a processed batch.
  if (!existsSync(`${src}/write-stages.ts`))
    return {
      decode: (await import(`${src}/otlp/decode-proto.ts`)).decodeProtobuf,
      open,
      write: (store, spans) => store.write(spans as never),
    };
  const { writeStagesSource } = await import(`${src}/write-stages.ts`);
  const { processBatch } = await import(`${src}/process/batch.ts`);
  return {
    decode: (await import(`${src}/otlp/decode-proto.ts`)).decodeProtobuf,
    open: (url, options) => open(url, { ...options, stages: writeStagesSource() }),
    write: (store, spans) => store.write(processBatch(spans)),
  };
}
const here = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');
const trees = { this: await tree(here), base: await tree(args.base) };
const { makeSpans, protobufBatches } = await import('./spans.js');

/** The databases of the round's stores, dropped once they are closed. */
const made: string[] = [];
async function freshStore(t: Tree): Promise<Storage> {
  const db = await freshPgDatabase();
  made.push(db);
  // At least 3: one writes, one merges rollup rows, one reads (pg-storage.ts). Merging as a serving collector
  // does, so its cost is in the figures (trees before it ignore the option).
  return t.open(db, { poolSize: Math.max(3, IN_FLIGHT), mergeRollups: true });
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const used = { this: 0, base: 0 };
const sides = ['this', 'base'] as const;
for (let round = 0; round < ROUNDS; round++) {
  // A new seed per round: the ids never repeat across rounds.
  const bodies = protobufBatches(makeSpans(TRACES, 1 + round * 7_000_000), 512);
  const stores = {
    this: await freshStore(trees.this),
    base: await freshStore(trees.base),
  };
  for (let at = 0, turn = 0; at < bodies.length; at += IN_FLIGHT, turn++) {
    const group = bodies.slice(at, at + IN_FLIGHT);
    for (const side of turn % 2 === 0 ? sides : [...sides].reverse()) {
      const t0 = cpuUs();
      await Promise.all(
        group.map((body) => {
          const decoded = trees[side].decode(body);
          if (!decoded.ok) throw new Error(decoded.message);
          return trees[side].write(stores[side], decoded.batch.spans);
        }),
      );
      used[side] += cpuUs() - t0;
    }
  }
  for (const side of sides) await stores[side].close();
  for (const db of made.splice(0)) await dropPgDatabase(db);
}
const spans = TRACES * 8 * ROUNDS;
const per = (us: number) => (us / spans).toFixed(2);
console.log(
  `pg-write-ab  node ${process.version}  ${ROUNDS} rounds × ${spans / ROUNDS} spans in batches of 512, ${IN_FLIGHT} in flight, CPU of this process per span`,
);
console.log(
  `  this ${per(used.this)} µs  base (${args.base}) ${per(used.base)} µs  difference ${per(used.this - used.base)} µs`,
);
