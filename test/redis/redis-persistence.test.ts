import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { relayKeys } from '../../src/redis/relay/relay-keys.js';
import { runBatchScript } from '../../src/redis/script-set.js';
import { hasRedis } from './redis-targets.js';
import { RedisServer } from './redis-server.js';

/** What a matcher owner writes for a waiting ticket (fenced), and the fencing counter it holds. */
async function ownerWrites(client: Redis): Promise<number> {
  const lease = await RedisFactoryLease.open(client, 'node-a', 60_000, () => ({ lease: relayKeys.lease, fence: relayKeys.fence }));
  const answer = await lease.acquire('matcher');
  if (!answer.held) throw new Error('the lease should be free');
  const step = [answer.token, 'owner', 60_000, 60_000, 'R', 't1', '{"arrival":1}'];
  expect(await runBatchScript<number>(client, 'gfRelayCommit', [relayKeys.fence, relayKeys.tickets, relayKeys.inbox], step)).toBe(1);
  return answer.token;
}

describe('Redis restart', () => {
  it('with AOF (appendfsync always), a ticket the owner stored and its fencing token survive kill -9 of redis-server', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start({ appendfsync: 'always' });
    let client = new Redis(first.port, '127.0.0.1');
    const token = await ownerWrites(client);
    client.disconnect();
    await first.kill('SIGKILL');
    const second = await RedisServer.start({ appendfsync: 'always', dir: first.dir, port: first.port });
    client = new Redis(second.port, '127.0.0.1');
    try {
      expect(await client.hget(relayKeys.tickets, 't1')).toBe('{"arrival":1}');
      expect(Number(await client.get(relayKeys.fence))).toBe(token);
    } finally {
      client.disconnect();
      await second.stop();
      await first.stop(); // removes the temp dir both used
    }
  });

  it('without persistence, a restart forgets everything, the fencing counter too (what docs/scale-out.md warns about)', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start();
    let client = new Redis(first.port, '127.0.0.1');
    await ownerWrites(client);
    client.disconnect();
    await first.kill('SIGKILL');
    const second = await RedisServer.start({ dir: first.dir, port: first.port });
    client = new Redis(second.port, '127.0.0.1');
    try {
      expect(await client.hget(relayKeys.tickets, 't1')).toBeNull();
      expect(await client.get(relayKeys.fence)).toBeNull();
    } finally {
      client.disconnect();
      await second.stop();
      await first.stop();
    }
  });
});
