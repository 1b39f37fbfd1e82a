import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisPlayerIndex } from '../../src/redis/player-index.js';
import { RedisTicketBook } from '../../src/redis/ticket-book.js';
import { hasRedis } from './redis-targets.js';
import { RedisServer } from './redis-server.js';

describe('Redis restart', () => {
  it('with AOF (appendfsync always), an acknowledged ticket and player claim survive kill -9 of redis-server', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start({ appendfsync: 'always' });
    let client = new Redis(first.port, '127.0.0.1');
    await (await RedisTicketBook.open(client)).intake('duel', 't1', 'payload');
    expect(await (await RedisPlayerIndex.open(client)).claim('t1', ['alice'])).toBeUndefined();
    client.disconnect();
    await first.kill('SIGKILL');
    const second = await RedisServer.start({ appendfsync: 'always', dir: first.dir, port: first.port });
    client = new Redis(second.port, '127.0.0.1');
    try {
      const book = await RedisTicketBook.open(client);
      expect(await book.intake('duel', 't1', 'payload')).toEqual({ created: false, state: 'waiting', priority: 1, assignment: undefined });
      expect(await (await RedisPlayerIndex.open(client)).holder('alice')).toBe('t1');
    } finally {
      client.disconnect();
      await second.stop();
      await first.stop(); // removes the temp dir both used
    }
  });

  it('without persistence, a restart forgets everything (what docs/scale-out.md warns about)', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const first = await RedisServer.start();
    let client = new Redis(first.port, '127.0.0.1');
    await (await RedisTicketBook.open(client)).intake('duel', 't1', 'payload');
    client.disconnect();
    await first.kill('SIGKILL');
    const second = await RedisServer.start({ dir: first.dir, port: first.port });
    client = new Redis(second.port, '127.0.0.1');
    try {
      expect(await (await RedisTicketBook.open(client)).state('duel', 't1')).toBeUndefined();
    } finally {
      client.disconnect();
      await second.stop();
      await first.stop();
    }
  });
});
