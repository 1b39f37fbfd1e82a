import { describe, expect, it } from 'vitest';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { hasRedis, redisTargets } from './redis-targets.js';

let unique = 0;
const fresh = (name: string) => `${name}-${++unique}`;

describe.each(redisTargets({ memory: true }))('a named lease on $name', (target) => {
  it('one holder at a time; a new holder gets a newer fencing token', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const name = fresh('lease');
    const a = await RedisFactoryLease.open(target.client(), 'node-a', 60_000);
    const b = await RedisFactoryLease.open(target.client(), 'node-b', 60_000);
    const first = (await a.acquire(name)) as { held: true; token: number };
    expect(first.held).toBe(true);
    // Ours already, but asked for again: a new term (the node stopped acting on the old one).
    const again = (await a.acquire(name)) as { held: true; token: number };
    expect(again.token).toBeGreaterThan(first.token);
    expect(await a.renew(name, first.token)).toBe(false);
    expect(await a.release(name, first.token)).toBe(false);
    const refused = await b.acquire(name);
    expect(refused.held).toBe(false);
    expect(await a.renew(name, again.token)).toBe(true);
    expect(await b.renew(name, again.token)).toBe(false);
    expect(await a.release(name, again.token)).toBe(true);
    const second = (await b.acquire(name)) as { held: true; token: number };
    expect(second.held).toBe(true);
    expect(second.token).toBeGreaterThan(again.token);
    expect(await a.renew(name, again.token)).toBe(false);
  });
});
