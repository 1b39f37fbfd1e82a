import { describe, expect, it } from 'vitest';
import { defineScripts, type RedisClient } from '../../src/redis/script-set.js';
import { RedisPlayerClaims, playerClaimKey, ticketClaimKey } from '../../src/redis/shards/player-claims.js';
import { hasRedis, redisTargets } from './redis-targets.js';

/** One live ticket per player across shards, on a redis-server and a 3-master Cluster. */
describe.each(redisTargets({ memory: true }))('player claims on $name', (target) => {
  /** A client with the scripts defined, claims on it, and ids of this test on this target (keys do not meet another's). */
  const setUp = async (prefix: string) => {
    const client = target.client();
    await defineScripts(client);
    const run = `${prefix}-${target.name.length}-${Date.now()}`;
    return { client, claims: new RedisPlayerClaims(client, 60_000), id: (name: string) => `${name}-${run}` };
  };

  it('claims a party whole or not at all; a retry keeps it; only its ticket releases it; it expires', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { client, claims, id } = await setUp('party');
    const [a, b, c] = ['a', 'b', 'c'].map(id) as [string, string, string];

    expect((await claims.claim('t1', 0, [a, b])).conflict).toBeUndefined();
    expect((await claims.claim('t1', 0, [a, b])).conflict).toBeUndefined(); // a retry
    // b is t1's: a party with c and b is refused, and c is not left claimed.
    expect((await claims.claim('t2', 0, [c, b])).conflict).toEqual({ playerId: b, ticketId: 't1' });
    expect(await client.get(playerClaimKey(c))).toBeNull();
    // Another ticket cannot release t1's players.
    await claims.release('t2', 0, [a, b]);
    expect(await client.get(playerClaimKey(a))).toBe('0:t1');
    await claims.release('t1', 0, [a, b]);
    expect((await claims.claim('t2', 0, [c, b])).conflict).toBeUndefined();
    // A claim left behind expires.
    const short = new RedisPlayerClaims(client, 50);
    expect((await short.claim('t3', 0, [a])).conflict).toBeUndefined();
    await target.wait(150);
    expect((await claims.claim('t4', 0, [a])).conflict).toBeUndefined();
  });

  it("one tick's claims and releases go out together, in order: a player asked for twice is one ticket's, on one node or two", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { client, claims: here, id } = await setUp('batch');
    const other = (client as { duplicate(): RedisClient }).duplicate(); // a second node's connection
    await defineScripts(other);
    const there = new RedisPlayerClaims(other, 60_000);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(id) as [string, string, string, string];

    // One tick on this node: t1 takes a; t2's party (c, a) is refused whole; t3 takes d.
    const [first, second, third] = (await Promise.all([here.claim('t1', 0, [a]), here.claim('t2', 0, [c, a]), here.claim('t3', 0, [d])])).map((x) => x.conflict);
    expect([first, second, third]).toEqual([undefined, { playerId: a, ticketId: 't1' }, undefined]);
    expect(await client.get(playerClaimKey(c))).toBeNull();
    // The same tick on two nodes: b goes to exactly one of them, and the other is refused.
    const both = (await Promise.all([here.claim('t4', 0, [b]), there.claim('t5', 0, [b])])).map((x) => x.conflict);
    expect(both.filter((x) => x === undefined)).toHaveLength(1);
    expect(both.find((x) => x !== undefined)?.ticketId).toBe((await client.get(playerClaimKey(b))) === '0:t4' ? 't4' : 't5');
    // A release asked before a claim in the same tick is applied first: a is free for t6.
    const [, freed] = await Promise.all([here.release('t1', 0, [a]), here.claim('t6', 0, [a]).then((x) => x.conflict)]);
    expect(freed).toBeUndefined();
    expect(await client.get(playerClaimKey(a))).toBe('0:t6');
    // A release by a ticket that does not hold the player changes nothing, batched or not.
    await Promise.all([here.release('t1', 0, [a]), here.release('t5', 0, [d])]);
    expect(await client.get(playerClaimKey(a))).toBe('0:t6');
    expect(await client.get(playerClaimKey(d))).toBe('0:t3');
    other.disconnect();
  });

  it("a live ticket's id is its shard's: the same id for another shard's factory is refused, whatever its party, until the ticket is released", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { client, claims, id } = await setUp('id');
    const [alice, mallory, ticket] = ['alice', 'mallory', 'T'].map(id) as [string, string, string];

    expect((await claims.claim(ticket, 3, [alice])).conflict).toBeUndefined();
    expect((await claims.claim(ticket, 3, [alice])).conflict).toBeUndefined(); // a retry, same shard
    // Another party, or the same one, under that id in another shard: refused, nothing claimed.
    expect((await claims.claim(ticket, 5, [mallory])).conflict).toEqual({ ticketId: ticket, shard: 3 });
    expect((await claims.claim(ticket, 5, [alice])).conflict).toEqual({ ticketId: ticket, shard: 3 });
    expect(await client.get(playerClaimKey(mallory))).toBeNull();
    expect(await client.get(playerClaimKey(alice))).toBe(`3:${ticket}`);
    // Another shard's release of that id frees nothing; the ticket's own frees the id and its players.
    await claims.release(ticket, 5, [alice]);
    expect(await client.get(ticketClaimKey(ticket))).toBe(`3:${ticket}`);
    expect(await claims.shardOf(ticket)).toBe(3); // where a cancel through a node that does not hold the call goes
    await claims.release(ticket, 3, [alice]);
    expect(await client.get(ticketClaimKey(ticket))).toBeNull();
    expect(await claims.shardOf(ticket)).toBeUndefined();
    expect((await claims.claim(ticket, 5, [mallory])).conflict).toBeUndefined();
    expect(await claims.shardOf(ticket)).toBe(5);
  });

  it("a claim's undo gives back only what it took: a retry's, or a same-shard namesake's, leaves the live ticket its keys; keepId keeps the id", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { client, claims, id } = await setUp('undo');
    const [alice, mallory, ticket] = ['alice', 'mallory', 'T'].map(id) as [string, string, string];
    const first = await claims.claim(ticket, 3, [alice]);
    expect(first.conflict).toBeUndefined();
    // A retry that never reaches a core (its forward failed): alice and the id stay the live ticket's.
    const retry = await claims.claim(ticket, 3, [alice]);
    if (retry.conflict) throw new Error('a retry was refused');
    await retry.undo();
    expect([await client.get(playerClaimKey(alice)), await client.get(ticketClaimKey(ticket))]).toEqual([`3:${ticket}`, `3:${ticket}`]);
    // Mallory under the same id in the same shard (its core refuses her): her undo frees her, not the id.
    const namesake = await claims.claim(ticket, 3, [mallory]);
    if (namesake.conflict) throw new Error('a same-shard namesake is for its core to refuse');
    await namesake.undo();
    expect([await client.get(playerClaimKey(mallory)), await client.get(ticketClaimKey(ticket))]).toEqual([null, `3:${ticket}`]);
    // The core's release of a refused find while the ticket lives: its players, not the id.
    await claims.claim(ticket, 3, [mallory]);
    await claims.release(ticket, 3, [mallory], true);
    expect([await client.get(playerClaimKey(mallory)), await client.get(ticketClaimKey(ticket))]).toEqual([null, `3:${ticket}`]);
    // The first claim's undo gives back all it took.
    if (first.conflict) throw new Error('unreachable');
    await first.undo();
    expect([await client.get(playerClaimKey(alice)), await client.get(ticketClaimKey(ticket))]).toEqual([null, null]);
  });
});
