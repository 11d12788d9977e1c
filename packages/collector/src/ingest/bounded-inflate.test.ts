// Inflating within the body limit and the in-flight budget: ordinary bodies inflate side by side within a budget
// far under the limit (the default memory limit's 12.5 MiB against a 16 MiB body limit, where reserving the limit
// up front let one request at a time through), a bomb stops at the limit or at the room there is, and what a
// body holds of the budget afterwards is its inflated size.
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyBudget } from './body-budget.js';
import { inflateBounded } from './bounded-inflate.js';

const MiB = 1024 * 1024;
/** About 200 KiB of text that compresses about as well as an OTLP batch (10-15 to one), different for each seed. */
const batchLike = (seed: number) =>
  Buffer.from(
    Array.from(
      { length: 4096 },
      (_, i) => `{"trace":"${(seed * 7919 + i).toString(16).padStart(32, '0')}","n":${i % 17}}`,
    ).join(''),
  );

describe('inflateBounded', () => {
  it('inflates sixteen ordinary bodies at once within a budget under the body limit', async () => {
    const budget = new BodyBudget(12.5 * MiB);
    const bodies = Array.from({ length: 16 }, (_, i) => batchLike(i));
    const holders = bodies.map(() => ({}));
    const results = await Promise.all(
      bodies.map((body, i) =>
        inflateBounded(gzipSync(body), 'gzip', 16 * MiB, budget, holders[i] as object),
      ),
    );
    for (const [i, result] of results.entries()) {
      expect(result.ok && result.body.equals(bodies[i] as Buffer)).toBe(true);
    }
    // What the bodies hold now is their inflated size, nothing of the limit.
    const inflated = bodies.reduce((sum, b) => sum + b.length, 0);
    expect(budget.stats.usedBytes).toBe(inflated);
    for (const holder of holders) budget.release(holder);
    expect(budget.stats.usedBytes).toBe(0);
  });

  it('inflates deflate bodies and gzip bodies whose stated size is wrong, holding their size after', async () => {
    const budget = new BodyBudget(64 * MiB);
    const body = batchLike(1);
    const deflateHolder = {};
    const deflated = await inflateBounded(
      deflateSync(body),
      'deflate',
      16 * MiB,
      budget,
      deflateHolder,
    );
    expect(deflated.ok && deflated.body.equals(body)).toBe(true);
    expect(budget.stats.usedBytes).toBe(body.length);
    budget.release(deflateHolder);
    // Two gzip members: the stated size is the last member's alone, so the reservation and the buffer grow.
    const twoMembers = Buffer.concat([gzipSync(body), gzipSync(body)]);
    const holder = {};
    const grown = await inflateBounded(twoMembers, 'gzip', 16 * MiB, budget, holder);
    expect(grown.ok && grown.body.equals(Buffer.concat([body, body]))).toBe(true);
    expect(budget.stats.usedBytes).toBe(2 * body.length);
    budget.release(holder);
  });

  it('lets a deflate body alone at the start finish, and one that fits the room when others hold bytes', async () => {
    // 10 MiB of deflate (a size not stated): alone, it reserves the limit, so bytes others take meanwhile do not
    // starve it (decision 0006).
    const big = deflateSync(Buffer.alloc(10 * MiB, 0x61));
    const budget = new BodyBudget(12.5 * MiB);
    const alone = {};
    const inflating = inflateBounded(big, 'deflate', 16 * MiB, budget, alone);
    expect(budget.take({}, 2 * MiB)).toBe(false);
    expect(await inflating).toMatchObject({ ok: true });
    budget.release(alone);
    // 4.5 MiB when 5 are free: it fits, whatever the buffer's doubling would have asked.
    const other = {};
    budget.take(other, 7.5 * MiB);
    const fits = await inflateBounded(
      deflateSync(Buffer.alloc(4.5 * MiB, 0x62)),
      'deflate',
      16 * MiB,
      budget,
      {},
    );
    expect(fits).toMatchObject({ ok: true });
  });

  it('stops a bomb at the body limit, and at the room there is while others hold it', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * MiB, 0x20));
    const budget = new BodyBudget(12 * MiB);
    const alone = {};
    expect(await inflateBounded(bomb, 'gzip', 8 * MiB, budget, alone)).toMatchObject({
      ok: false,
      error: 'PAYLOAD_TOO_LARGE',
    });
    // Nothing of the refused output stays taken.
    expect(budget.stats.usedBytes).toBe(0);
    const other = {};
    expect(budget.take(other, 10 * MiB)).toBe(true);
    expect(await inflateBounded(bomb, 'gzip', 8 * MiB, budget, {})).toMatchObject({
      ok: false,
      error: 'BODIES_IN_FLIGHT',
    });
    expect(budget.stats.usedBytes).toBe(10 * MiB);
    // A body that states 1 KiB and inflates to 4 MiB: refused once past the room, all of it given back.
    const lying = gzipSync(Buffer.alloc(4 * MiB, 0x20));
    lying.writeUInt32LE(1024, lying.length - 4);
    expect(await inflateBounded(lying, 'gzip', 8 * MiB, budget, {})).toMatchObject({
      ok: false,
      error: 'BODIES_IN_FLIGHT',
    });
    expect(budget.stats.usedBytes).toBe(10 * MiB);
  });

  it('says a body that is not gzip is invalid', async () => {
    const budget = new BodyBudget(MiB);
    expect(await inflateBounded(Buffer.from('not gzip'), 'gzip', MiB, budget, {})).toMatchObject({
      ok: false,
      error: 'INVALID_OTLP',
    });
    expect(budget.stats.usedBytes).toBe(0);
  });
});
