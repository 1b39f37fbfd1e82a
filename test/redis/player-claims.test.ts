import { describe, expect, it } from 'vitest';
import { defineScripts, type RedisClient } from '../../src/redis/script-set.js';
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

  it("one tick's claims and releases go out together, in order: a player asked for twice is one ticket's, on one node or two", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    const other = (client as { duplicate(): RedisClient }).duplicate(); // a second node's connection
    await defineScripts(client);
    await defineScripts(other);
    const here = new RedisPlayerClaims(client, 60_000);
    const there = new RedisPlayerClaims(other, 60_000);
    const run = `batch-${target.name.length}-${Date.now()}`;
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((p) => `${p}-${run}`) as [string, string, string, string];

    // One tick on this node: t1 takes a; t2's party (c, a) is refused whole; t3 takes d.
    const [first, second, third] = await Promise.all([here.claim('t1', [a]), here.claim('t2', [c, a]), here.claim('t3', [d])]);
    expect([first, second, third]).toEqual([undefined, { playerId: a, ticketId: 't1' }, undefined]);
    expect(await client.get(playerClaimKey(c))).toBeNull();
    // The same tick on two nodes: b goes to exactly one of them, and the other is refused.
    const both = await Promise.all([here.claim('t4', [b]), there.claim('t5', [b])]);
    expect(both.filter((x) => x === undefined)).toHaveLength(1);
    expect(both.find((x) => x !== undefined)?.ticketId).toBe((await client.get(playerClaimKey(b))) === 't4' ? 't4' : 't5');
    // A release asked before a claim in the same tick is applied first: a is free for t6.
    const [, freed] = await Promise.all([here.release('t1', [a]), here.claim('t6', [a])]);
    expect(freed).toBeUndefined();
    expect(await client.get(playerClaimKey(a))).toBe('t6');
    // A release by a ticket that does not hold the player changes nothing, batched or not.
    await Promise.all([here.release('t1', [a]), here.release('t5', [d])]);
    expect(await client.get(playerClaimKey(a))).toBe('t6');
    expect(await client.get(playerClaimKey(d))).toBe('t3');
    other.disconnect();
  });
});
