import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planShards, shardMoves, shardOfFactory } from '../../src/sharding/index.js';

const NODE_NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'n10', 'n11'];

/** A random view: some live nodes, holders among live ones, dead ones ("d…") or none. */
const views = fc
  .record({
    shardCount: fc.integer({ min: 1, max: 130 }),
    live: fc.uniqueArray(fc.constantFrom(...NODE_NAMES), { minLength: 1, maxLength: 12 }),
    seed: fc.array(fc.integer({ min: -3, max: 11 }), { minLength: 130, maxLength: 130 }),
  })
  .map(({ shardCount, live, seed }) => ({
    shardCount,
    liveNodes: live,
    holders: seed.slice(0, shardCount).map((i) => (i === -3 ? undefined : i < 0 ? `dead${-i}` : live[i % live.length])),
  }));

function countsOf(target: readonly (string | undefined)[], nodes: readonly string[]): Map<string, number> {
  const counts = new Map(nodes.map((n) => [n, 0]));
  for (const owner of target) counts.set(owner!, (counts.get(owner!) ?? 0) + 1);
  return counts;
}

/** The fewest held shards that must change hands to reach ±1 balance (computed independently). */
function leastMoved(holders: readonly (string | undefined)[], live: readonly string[], shardCount: number): number {
  const held = live.map((n) => holders.filter((h) => h === n).length).sort((a, b) => b - a);
  const base = Math.floor(shardCount / live.length);
  const extra = shardCount % live.length;
  return held.reduce((moved, h, i) => moved + Math.max(0, h - (base + (i < extra ? 1 : 0))), 0);
}

/** Nodes act one at a time on a shared set of leases, each from a fresh view, until nothing moves. */
function settle(holders: (string | undefined)[], live: readonly string[], order: readonly number[]): { releases: number; rounds: number } {
  let releases = 0;
  for (let round = 0; round < 50; round++) {
    let moved = false;
    for (const pick of order.length > 0 ? order : [0]) {
      const node = live[pick % live.length]!;
      const moves = shardMoves(node, planShards({ shardCount: holders.length, liveNodes: live, holders }), holders);
      for (const shard of moves.release) holders[shard] = undefined;
      const after = shardMoves(node, planShards({ shardCount: holders.length, liveNodes: live, holders }), holders);
      for (const shard of after.acquire) holders[shard] = node;
      releases += moves.release.length;
      moved ||= moves.release.length + after.acquire.length > 0;
    }
    if (!moved) return { releases, rounds: round };
  }
  throw new Error('did not settle');
}

describe('factory to shard', () => {
  it('is a stable hash: the same name gives the same shard on every node and version', () => {
    // Pinned: a change here moves every factory between shards in a running cluster. SHA-256("a")
    // starts ca 97 81 12 ca 1b, and 0xca978112ca1b mod 64 = 0x1b = 27.
    expect([shardOfFactory('a', 64), shardOfFactory('duel/version=v201', 64), shardOfFactory('duel/version=v201', 7)]).toEqual([27, 13, 4]);
  });

  it('spreads factory names evenly over the shards', () => {
    const counts = new Array<number>(64).fill(0);
    for (let i = 0; i < 6400; i++) counts[shardOfFactory(`diablo/difficulty=d${i % 5}/hardcore=${i % 2 === 0}/version=v${i}`, 64)]!++;
    // 100 per shard on average; a binomial(6400, 1/64) stays within ±45 with overwhelming odds.
    expect(Math.min(...counts)).toBeGreaterThan(55);
    expect(Math.max(...counts)).toBeLessThan(145);
  });
});

describe('shard plan (property tests)', () => {
  it('every shard gets a live owner and every live node ⌊S/N⌋ or ⌈S/N⌉ shards', () => {
    fc.assert(
      fc.property(views, (view) => {
        const target = planShards(view);
        expect(target.every((owner) => owner !== undefined && view.liveNodes.includes(owner))).toBe(true);
        const counts = [...countsOf(target, view.liveNodes).values()];
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 400 },
    );
  });

  it('moves no more held shards than any ±1-balanced assignment must, and never a shard whose holder keeps room for it', () => {
    fc.assert(
      fc.property(views, (view) => {
        const target = planShards(view);
        const moved = view.holders.filter((h, s) => h !== undefined && view.liveNodes.includes(h) && target[s] !== h).length;
        expect(moved).toBe(leastMoved(view.holders, view.liveNodes, view.shardCount));
      }),
      { numRuns: 400 },
    );
  });

  it('is the same whatever order the live nodes were listed in', () => {
    fc.assert(
      fc.property(views, fc.integer(), (view, shift) => {
        const rotated = view.liveNodes.map((_, i) => view.liveNodes[(i + Math.abs(shift)) % view.liveNodes.length]!);
        expect(planShards({ ...view, liveNodes: [...rotated].reverse() })).toEqual(planShards(view));
      }),
      { numRuns: 200 },
    );
  });

  it('a joining node takes only its share; a dead node loses only its own shards', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 10 }), fc.nat(), (shardCount, n, pick) => {
        const live = NODE_NAMES.slice(0, n);
        const settled = planShards({ shardCount, liveNodes: live, holders: [] });
        const joined = planShards({ shardCount, liveNodes: [...live, 'newcomer'], holders: settled });
        const movedOnJoin = settled.filter((owner, s) => joined[s] !== owner);
        expect(joined.filter((o, s) => o !== settled[s]).every((o) => o === 'newcomer')).toBe(true);
        expect(movedOnJoin.length).toBe(joined.filter((o) => o === 'newcomer').length);

        const dead = live[pick % n]!;
        const survivors = live.filter((x) => x !== dead);
        if (survivors.length === 0) return;
        const after = planShards({ shardCount, liveNodes: survivors, holders: settled });
        settled.forEach((owner, s) => {
          if (owner !== dead) expect(after[s]).toBe(owner);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('nodes acting one at a time from fresh views converge to a balanced fixpoint, releasing no more than the least movement', () => {
    fc.assert(
      fc.property(views, fc.array(fc.nat({ max: 11 }), { maxLength: 20 }), (view, order) => {
        const holders = view.holders.map((h) => (h !== undefined && view.liveNodes.includes(h) ? h : undefined));
        const least = leastMoved(holders, view.liveNodes, view.shardCount);
        const { releases } = settle(holders, view.liveNodes, [...order, ...view.liveNodes.map((_, i) => i)]);
        expect(releases).toBe(least);
        expect(planShards({ ...view, holders })).toEqual(holders);
      }),
      { numRuns: 200 },
    );
  });
});

describe('shard plan with demand (property tests)', () => {
  const hotViews = fc.tuple(views, fc.array(fc.nat(), { maxLength: 40 })).map(([view, picks]) => ({ ...view, hot: new Set(picks.map((p) => p % view.shardCount)) }));

  it('the shards with demand spread ±1 over the live nodes, and every node still has ⌊S/N⌋ or ⌈S/N⌉ shards', () => {
    fc.assert(
      fc.property(hotViews, (view) => {
        const target = planShards(view);
        expect(target.every((owner) => owner !== undefined && view.liveNodes.includes(owner))).toBe(true);
        const hotCounts = [...countsOf(target.map((o, s) => (view.hot.has(s) ? o : undefined)).filter((o) => o !== undefined), view.liveNodes).values()];
        expect(Math.max(...hotCounts) - Math.min(...hotCounts)).toBeLessThanOrEqual(1);
        const counts = [...countsOf(target, view.liveNodes).values()];
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 400 },
    );
  });

  it('is a fixpoint: once the leases follow the plan, the same demand moves nothing', () => {
    fc.assert(
      fc.property(hotViews, (view) => {
        const target = planShards(view);
        expect(planShards({ ...view, holders: target })).toEqual(target);
      }),
      { numRuns: 400 },
    );
  });

  it('8 busy shards of 64 on 4 nodes: 2 each (by count alone, a node may get none)', () => {
    const live = ['n0', 'n1', 'n2', 'n3'];
    const settled = planShards({ shardCount: 64, liveNodes: live, holders: [] });
    const hot = new Set([3, 9, 17, 22, 30, 41, 50, 63]);
    const target = planShards({ shardCount: 64, liveNodes: live, holders: settled, hot });
    expect([...countsOf([...hot].map((s) => target[s]), live).values()]).toEqual([2, 2, 2, 2]);
    expect([...countsOf(target, live).values()]).toEqual([16, 16, 16, 16]);
  });
});
