import { describe, expect, it } from 'vitest';
import { defineScripts } from '../../src/redis/script-set.js';
import { RedisPlayerClaims, playerClaimKey } from '../../src/redis/shards/player-claims.js';
import { hasRedis, redisTargets } from './redis-targets.js';

/** One live ticket per player across shards, on a redis-server and a 3-master Cluster. */
describe.each(redisTargets())('player claims on $name', (target) => {
  it('claims a party whole or not at all; a retry keeps it; only its ticket releases it; it expires', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    await defineScripts(client);
    const claims = new RedisPlayerClaims(client, 60_000);
    const run = `${target.name.length}-${Date.now()}`;
    const [a, b, c] = ['a', 'b', 'c'].map((p) => `${p}-${run}`) as [string, string, string];

    expect(await claims.claim('t1', [a, b])).toBeUndefined();
    expect(await claims.claim('t1', [a, b])).toBeUndefined(); // a retry
    // b is t1's: a party with c and b is refused, and c is not left claimed.
    expect(await claims.claim('t2', [c, b])).toEqual({ playerId: b, ticketId: 't1' });
    expect(await client.get(playerClaimKey(c))).toBeNull();
    // Another ticket cannot release t1's players.
    await claims.release('t2', [a, b]);
    expect(await client.get(playerClaimKey(a))).toBe('t1');
    await claims.release('t1', [a, b]);
    expect(await claims.claim('t2', [c, b])).toBeUndefined();
    // A claim left behind expires.
    const short = new RedisPlayerClaims(client, 50);
    expect(await short.claim('t3', [a])).toBeUndefined();
    await new Promise((r) => setTimeout(r, 150));
    expect(await claims.claim('t4', [a])).toBeUndefined();
  });
});
