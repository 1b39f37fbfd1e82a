import { describe, expect, it } from 'vitest';
import { connectRedis, redisReady } from '../../src/redis/connect.js';
import { RedisPlacement } from '../../src/redis/redis-placement.js';
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
      const placement = await RedisPlacement.open({ client, policy: 'fill', now: () => 0 });
      await placement.addServer('s', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 0);
      await first.kill('SIGKILL');
      await expect(placement.freeSlots('f')).rejects.toThrow();
      const second = await RedisServer.start({ appendfsync: 'always', dir: first.dir, port: first.port });
      try {
        await redisReady(client);
        expect(await placement.freeSlots('f')).toBe(3);
        expect(await placement.place('f', 'r', 1)).toEqual({ serverId: 's' }); // scripts reloaded after NOSCRIPT
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
      const placement = await RedisPlacement.open({ client, policy: 'fill', now: () => 0 });
      await placement.addServer('s', ['f'], { maxGames: 2, maxStartsPerSecond: 0 }, 0);
      expect(await placement.freeSlots()).toBe(2);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  });
});
