/**
 * The RatingStore contract (test/contracts/rating-store.contract.ts) on Redis, on one redis-server
 * and on a 3-master Redis Cluster: each node is its own RedisRatingStore (its own mirror) on the
 * shared data, and `settle` is that node catching up with the change streams.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { runContract } from '../contracts/contract.js';
import { byStanding, ratingStoreCases } from '../contracts/rating-store.contract.js';
import { DEFAULT_ELO, eloSystem } from '../../src/ratings/index.js';
import { RatingConflict, RedisRatingStore } from '../../src/redis/ratings/index.js';
import type { RedisClient } from '../../src/redis/script-set.js';
import { hasRedis, redisTargets, type RedisTarget } from './redis-targets.js';

const LADDERS = ['duel', 'other'];
const elo = eloSystem(DEFAULT_ELO);

/** Every case starts from an empty Redis (this file's servers hold nothing else). */
async function flush(client: RedisClient): Promise<void> {
  const masters = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  await Promise.all(masters.map((m) => m.flushall()));
}

describe.each(redisTargets())('rating store on $name', (target: RedisTarget) => {
  const open: RedisRatingStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const node = async (options: { followEveryMs?: number; changesKept?: number } = {}) => {
    const store = await RedisRatingStore.open(target.client(), { ladders: LADDERS, standing: byStanding, followEveryMs: 60_000, ...options });
    open.push(store);
    return store;
  };

  runContract('RatingStore', `Redis (${target.name})`, ratingStoreCases, async () => {
    if (hasRedis) await flush(target.client());
    return { node: () => node(), settle: (store) => (store as RedisRatingStore).catchUp() };
  });

  const needRedis = async (ctx: { skip: (note?: string) => void }) => {
    if (!hasRedis) ctx.skip('redis-server is not installed');
    await flush(target.client());
  };

  it('a result rated from a rating that moved on another node is refused, and succeeds once rated again', async (ctx) => {
    await needRedis(ctx);
    const [here, there] = [await node(), await node()];
    await here.put('duel', 'p', { ...elo.initial(), mean: 1500 });
    await there.catchUp();
    const update = (store: RedisRatingStore, rival: string) =>
      elo.update({ teams: [['p'], [rival]], ranks: [0, 1], day: 1 }, new Map([['p', store.get('duel', 'p')!]]));
    expect(await there.recordResult({ ladder: 'duel', gameId: 'g-there', at: 1, ratings: update(there, 'q') })).toBe(true);
    // "here" has not seen that game yet: its rating of p is stale.
    await expect(here.recordResult({ ladder: 'duel', gameId: 'g-here', at: 2, ratings: update(here, 'r') })).rejects.toBeInstanceOf(RatingConflict);
    expect(here.get('duel', 'p')).toEqual(there.get('duel', 'p')); // caught up by the refusal
    expect(here.hasResult('duel', 'g-here')).toBe(false);
    expect(await here.recordResult({ ladder: 'duel', gameId: 'g-here', at: 2, ratings: update(here, 'r') })).toBe(true);
    expect(here.get('duel', 'p')!.mean).toBeGreaterThan(there.get('duel', 'p')!.mean);
  });

  it('rankNow and leaderboardNow answer from the sorted set in Redis, as the mirror does', async (ctx) => {
    await needRedis(ctx);
    const [writer, reader] = [await node(), await node()];
    for (const [player, mean] of [['carol', 1600], ['bob', 1500], ['alice', 1500], ['dave', 1400]] as const) {
      await writer.put('duel', player, { ...elo.initial(), mean });
    }
    // Before the reader's mirror follows, Redis already answers.
    expect(reader.rank('duel', 'alice')).toBeUndefined();
    expect(await reader.rankNow('duel', 'alice')).toBe(2);
    expect(await reader.rankNow('duel', 'nobody')).toBeUndefined();
    expect(await reader.leaderboardNow('duel', 1, 2)).toEqual(writer.leaderboard('duel', 1, 2));
    await reader.catchUp();
    expect(reader.leaderboard('duel', 0, 10)).toEqual(await reader.leaderboardNow('duel', 0, 10));
  });

  it('keeps every game of a player in Redis while the mirror keeps the recent ones', async (ctx) => {
    await needRedis(ctx);
    const store = await RedisRatingStore.open(target.client(), { ladders: LADDERS, standing: byStanding, followEveryMs: 60_000, historyPerPlayer: 2 });
    open.push(store);
    for (let g = 1; g <= 5; g++) {
      const ratings = elo.update({ teams: [['a'], ['b']], ranks: [0, 1], day: 1 }, new Map([...['a', 'b']].flatMap((p) => (store.get('duel', p) ? [[p, store.get('duel', p)!]] : []))));
      await store.recordResult({ ladder: 'duel', gameId: `g${g}`, at: g, ratings });
    }
    expect(store.history('duel', 'a', 10).map((h) => h.gameId)).toEqual(['g5', 'g4']);
    expect((await store.fullHistory('duel', 'a', 10)).map((h) => h.gameId)).toEqual(['g5', 'g4', 'g3', 'g2', 'g1']);
  });

  it('a node that fell behind the change stream it follows loads the ladder again', async (ctx) => {
    await needRedis(ctx);
    const writer = await node({ changesKept: 10 });
    const behind = await node({ changesKept: 10 });
    // MAXLEN ~ trims whole stream nodes (100 entries): write enough that the start is gone.
    for (let i = 0; i < 250; i++) await writer.put('duel', `p${i}`, { ...elo.initial(), mean: 1000 + i });
    expect(await target.client().xlen('gf:{r:duel}:changes')).toBeLessThan(250);
    await behind.catchUp();
    expect(behind.size('duel')).toBe(250);
    expect(behind.leaderboard('duel', 0, 250)).toEqual(writer.leaderboard('duel', 0, 250));
  });
});
