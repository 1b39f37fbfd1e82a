/**
 * The demand the slot-grant loop apportions by, read by every node's shard keeper: finds counted
 * on any node add up cluster-wide, and a shard's owner publishes its queued creations. On a real
 * redis-server and a 3-master Redis Cluster (a shard's keys share its slot).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ShardKeeper, memberKeys, shardFindsKey, shardKeys } from '../../src/redis/shards/index.js';
import { hasRedis, redisTargets } from '../redis/redis-targets.js';

const SHARDS = 8;
let run = 0;

async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(redisTargets())('shard demand on $name', (target) => {
  const open: ShardKeeper[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((k) => k.close()));
  });

  it("finds through any node add up for every node, and each shard's owner publishes its queued creations", async (ctx) => {
    if (!hasRedis) ctx.skip('redis-server is not installed');
    run++;
    const client = target.client();
    for (const key of [memberKeys.nodes, memberKeys.shardCount]) await client.del(key);
    const window = Math.floor(Date.now() / 10_000);
    for (let shard = 0; shard < SHARDS; shard++) {
      for (const key of Object.values(shardKeys(shard))) await client.del(key);
      for (let w = window - 2; w <= window + 2; w++) await client.del(shardFindsKey(shard, w));
    }
    const keeper = async (name: string) => {
      const k = await ShardKeeper.open(client, { nodeId: `${name}-demand-${run}`, shardCount: SHARDS, queued: (shard) => (shard === 2 ? 7 : 0), hooks: { gained() {}, lost() {} } });
      open.push(k);
      return k;
    };
    const [a, b] = [await keeper('a'), await keeper('b')];
    await until(() => a.ownedShards().size + b.ownedShards().size === SHARDS, 10_000, 'shards owned');
    await until(() => a.shardDemand().size === SHARDS && b.shardDemand().size === SHARDS, 10_000, 'demand read');
    for (let i = 0; i < 30; i++) a.demand(5);
    for (let i = 0; i < 10; i++) b.demand(5);
    // 40 finds over the last window and the part of this one gone by (10 to 20 s): 2 to 4 per second.
    const rate = (k: ShardKeeper) => k.shardDemand().get(5)!.perSecond;
    await until(() => [a, b].every((k) => rate(k) >= 40 / 20 - 1e-9), 10_000, 'finds of both nodes counted');
    for (const k of [a, b]) expect(rate(k)).toBeLessThanOrEqual(40 / 10 + 1e-9);
    // The owner of shard 2 (whichever node) wrote its queue; every node reads it.
    await until(() => [a, b].every((k) => k.shardDemand().get(2)!.queued === 7), 10_000, 'queued creations read');
    expect(a.shardDemand().get(3)!.queued).toBe(0);
  }, 30_000);
});
