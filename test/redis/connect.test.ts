import { describe, expect, it } from 'vitest';
import { connectRedis, redisReady } from '../../src/redis/connect.js';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { hasRedis } from './redis-targets.js';
import { RedisCluster, RedisServer } from './redis-server.js';

describe('connectRedis', () => {
  it('refuses an address it cannot read, naming it', () => {
    expect(() => connectRedis('localhost:6379')).toThrow(/redis:\/\/host:port/);
    expect(() => connectRedis('redis-cluster://a:1,b')).toThrow(/"b" is not host:port/);
  });

  it('while Redis is down calls fail at once; after it is back the client reconnects by itself', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start({ appendfsync: 'always' });
    const client = connectRedis(first.url);
    try {
      await redisReady(client);
      const lease = await RedisFactoryLease.open(client, 'node-a', 60_000);
      const held = (await lease.acquire('matcher')) as { held: true; token: number };
      expect(held.held).toBe(true);
      await first.kill('SIGKILL');
      await expect(lease.acquire('matcher')).rejects.toThrow();
      const second = await RedisServer.start({ appendfsync: 'always', dir: first.dir, port: first.port });
      try {
        await redisReady(client);
        // The lease survived (AOF) and is still ours; the scripts were reloaded after NOSCRIPT.
        expect(await lease.renew('matcher', held.token)).toBe(true);
        // Asked for again, it is a new term: a node asks only once it stopped acting on the old one.
        const again = (await lease.acquire('matcher')) as { held: true; token: number };
        expect(again.token).toBeGreaterThan(held.token);
      } finally {
        await second.stop();
      }
    } finally {
      client.disconnect();
      await first.stop();
    }
  });

  it('redis-cluster:// reaches every master of a Cluster', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const cluster = await RedisCluster.start();
    const client = connectRedis(`redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`);
    try {
      await redisReady(client);
      // Leases on different names land on different slots, hence masters: each must answer.
      const lease = await RedisFactoryLease.open(client, 'node-a', 60_000);
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) expect((await lease.acquire(name)).held).toBe(true);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  });
});
