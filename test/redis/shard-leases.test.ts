/**
 * Per-shard leases, fencing and membership on one redis-server and on a 3-master Redis Cluster,
 * both started by the test.
 */
import type { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ClusterMembership, ShardLeases, StaleShardOwner, memberKeys, shardKeys } from '../../src/redis/shards/index.js';
import { hasRedis, redisTargets, type RedisTarget } from './redis-targets.js';

let unique = 0;
/** Shard numbers no other case uses, so cases share the server without clearing it. */
const freshShard = () => 1000 + ++unique;

async function clearMembership(target: RedisTarget): Promise<void> {
  await target.client().del(memberKeys.nodes);
  await target.client().del(memberKeys.addresses);
  await target.client().del(memberKeys.shardCount);
}

const targets = redisTargets({ memory: true });

describe.each(targets)('shard leases on $name', (target) => {
  const needRedis = (ctx: { skip: (note?: string) => void }) => {
    if (!hasRedis) ctx.skip('redis-server is not installed');
  };

  it('one holder per shard; every new holder gets a larger token; holders() names them', async (ctx) => {
    needRedis(ctx);
    const shard = freshShard();
    const a = await ShardLeases.open(target.client(), 'node-a', 60_000);
    const b = await ShardLeases.open(target.client(), 'node-b', 60_000);
    const left = await a.acquire(shard);
    if (!left.held) throw new Error('a should hold a free shard');
    // Asked for again by its holder (which stopped acting on it): a new term, the old token is stale.
    const first = await a.acquire(shard);
    if (!first.held) throw new Error('a should hold its shard again');
    expect(first.token).toBeGreaterThan(left.token);
    expect(await a.renew(shard, left.token)).toBe(false);
    expect((await b.acquire(shard)).held).toBe(false);
    expect((await a.holders(shard + 1))[shard]).toBe('node-a');
    expect(await b.renew(shard, first.token)).toBe(false);
    expect(await b.release(shard, first.token)).toBe(false);
    expect(await a.release(shard, first.token)).toBe(true);
    expect((await a.holders(shard + 1))[shard]).toBeUndefined();
    const second = await b.acquire(shard);
    if (!second.held) throw new Error('b should hold the released shard');
    expect(second.token).toBeGreaterThan(first.token);
    expect(await a.renew(shard, first.token)).toBe(false);
  });

  it("a paused owner's writes are refused: after another node took the shard, and after its lease merely lapsed", async (ctx) => {
    needRedis(ctx);
    const shard = freshShard();
    const a = await ShardLeases.open(target.client(), 'node-a', 40);
    const b = await ShardLeases.open(target.client(), 'node-b', 60_000);
    const termA = await a.acquire(shard);
    if (!termA.held) throw new Error('a should hold a free shard');
    await a.storeTicket(shard, termA.token, 't1', 'from a');
    await target.wait(80); // a is paused past its lease (SIGSTOP, a long GC): nobody has taken the shard yet
    await expect(a.storeTicket(shard, termA.token, 't1', 'late from a')).rejects.toBeInstanceOf(StaleShardOwner);
    const termB = await b.acquire(shard);
    if (!termB.held) throw new Error('b should take the lapsed shard');
    expect(termB.token).toBeGreaterThan(termA.token);
    await expect(a.storeTicket(shard, termA.token, 't1', 'later from a')).rejects.toThrow(/another node owns the shard/);
    await b.storeTicket(shard, termB.token, 't2', 'from b');
    await b.storeTicket(shard, termB.token, 't1', '');
    expect(await b.tickets(shard)).toEqual(new Map([['t2', 'from b']]));
  });

  it('membership: each beat renews this node and returns the live ones; a silent node drops out after its TTL', async (ctx) => {
    needRedis(ctx);
    await clearMembership(target);
    const a = await ClusterMembership.open(target.client(), 'a', 60_000, 64);
    const b = await ClusterMembership.open(target.client(), 'b', 60, 64);
    expect(await a.beat()).toEqual({ live: ['a'], wasLive: false, addresses: new Map() });
    expect((await b.beat()).live).toEqual(['a', 'b']);
    expect(await a.beat()).toEqual({ live: ['a', 'b'], wasLive: true, addresses: new Map() });
    await target.wait(120);
    expect((await a.beat()).live).toEqual(['a']);
    expect((await b.beat()).wasLive).toBe(false);
    await b.leave();
    expect((await a.beat()).live).toEqual(['a']);
  });

  it('membership: a beat publishes the node\'s client-facing address and reads every live node\'s; a lapsed or departed node\'s address goes with it', async (ctx) => {
    needRedis(ctx);
    await clearMembership(target);
    const a = await ClusterMembership.open(target.client(), 'a', 60_000, 64);
    const b = await ClusterMembership.open(target.client(), 'b', 60, 64);
    const c = await ClusterMembership.open(target.client(), 'c', 60_000, 64);
    // No address yet (the gRPC port is bound after the node joins): the node is live, unnamed.
    expect((await a.beat()).addresses).toEqual(new Map());
    await b.beat('b.example:50052');
    await c.beat('c.example:50053');
    expect((await a.beat('a.example:50051')).addresses).toEqual(new Map([['a', 'a.example:50051'], ['b', 'b.example:50052'], ['c', 'c.example:50053']]));
    // A beat without one leaves the published address as it is.
    expect((await a.beat()).addresses.get('a')).toBe('a.example:50051');
    await target.wait(120); // b's TTL lapses
    await c.leave();
    expect((await a.beat()).addresses).toEqual(new Map([['a', 'a.example:50051']]));
    expect(await target.client().hkeys(memberKeys.addresses)).toEqual(['a']);
  });

  it('a node configured with another shard count is refused: it would map factories to other shards', async (ctx) => {
    needRedis(ctx);
    await clearMembership(target);
    await ClusterMembership.open(target.client(), 'a', 1000, 64);
    await expect(ClusterMembership.open(target.client(), 'b', 1000, 32)).rejects.toThrow(/shardCount: this node has 32 shards, the cluster on this Redis has 64/);
    await ClusterMembership.open(target.client(), 'c', 1000, 64);
  });
});

describe('shard keys on a 3-master Redis Cluster', () => {
  const clustered = targets[1];
  it('64 shards spread over all three masters (no single slot carries every shard)', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = clustered!.client() as Cluster;
    const ranges = await client.cluster('SLOTS');
    const masterOf = async (key: string) => {
      const slot = (await client.cluster('KEYSLOT', key)) as number;
      return ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    };
    const perMaster = new Map<number, number>();
    for (let shard = 0; shard < 64; shard++) {
      const keys = shardKeys(shard);
      const master = await masterOf(keys.lease);
      // Every key of a shard sits beside its lease, so one script touches one slot.
      expect(await masterOf(keys.tickets)).toBe(master);
      expect(await masterOf(keys.fence)).toBe(master);
      perMaster.set(master, (perMaster.get(master) ?? 0) + 1);
    }
    expect(perMaster.size).toBe(3);
    expect(Math.min(...perMaster.values())).toBeGreaterThan(10);
  });
});
