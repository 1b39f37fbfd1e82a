import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { ShardLeases, StaleShardOwner } from '../../src/redis/shards/index.js';
import { RedisServer } from './redis-server.js';
import { hasRedis } from './redis-targets.js';

/**
 * A Redis restarted without persistence has lost every lease and fence counter. The tokens must
 * still only grow, so an owner from before the restart and one after never hold the same token.
 */
describe('fencing tokens across a Redis restart without persistence', () => {
  it('the new owner gets a larger token and the old owner, unaware, can neither renew nor write', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start(); // no AOF, no RDB
    let client = new Redis(first.port, '127.0.0.1');
    const before = await ShardLeases.open(client, 'old-owner', 60_000);
    const relayBefore = await RedisFactoryLease.open(client, 'old-owner', 60_000);
    const old = await before.acquire(7);
    const oldRelay = await relayBefore.acquire('matcher');
    if (!old.held || !oldRelay.held) throw new Error('the first acquisitions should succeed');
    await before.storeTicket(7, old.token, 't1', 'queued before the restart');
    client.disconnect();
    await first.kill('SIGKILL');

    const second = await RedisServer.start({ dir: first.dir, port: first.port });
    client = new Redis(second.port, '127.0.0.1');
    try {
      expect(await client.dbsize()).toBe(0); // everything forgotten, the fence counters too
      const stale = await ShardLeases.open(client, 'old-owner', 60_000);
      const fresh = await ShardLeases.open(client, 'new-owner', 60_000);
      const now = await fresh.acquire(7);
      if (!now.held) throw new Error('the shard should be free after the restart');
      expect(now.token).toBeGreaterThan(old.token);
      expect(await stale.renew(7, old.token)).toBe(false);
      await expect(stale.storeTicket(7, old.token, 't1', 'stale write')).rejects.toBeInstanceOf(StaleShardOwner);
      // The same holds for the relay's matcher lease, which shares the acquire script.
      const relay = await (await RedisFactoryLease.open(client, 'new-owner', 60_000)).acquire('matcher');
      if (!relay.held) throw new Error('the matcher lease should be free after the restart');
      expect(relay.token).toBeGreaterThan(oldRelay.token);
    } finally {
      client.disconnect();
      await second.stop();
      await first.stop();
    }
  });
});
