import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { RedisOwnerStore, type OwnerWrite } from '../../src/redis/relay/owner-store.js';
import { shardRelayKeys } from '../../src/redis/relay/relay-keys.js';
import { RedisPlayerClaims, playerClaimKey, ticketClaimKey } from '../../src/redis/shards/player-claims.js';
import { defineScripts, type RedisClient } from '../../src/redis/script-set.js';
import { hasRedis, redisTargets } from './redis-targets.js';

/**
 * A step as large as a deep backlog makes it: a shard taken over with tens of thousands of finds
 * waiting, or a node whose clients keep thousands of finds each in flight. Such a step was one
 * script call whose keys and arguments were spread into a function call: past V8's argument limit
 * it threw "Maximum call stack size exceeded" inside ioredis' auto-pipeline, which then crashed the
 * node ("results[i] is not iterable"). Seen with the scale-out bench's load processes keeping 4,096
 * finds each in flight: a commit of 34,515 writes.
 */
const WRITES = 40_000;

const record = (ticketId: string, arrival: number): TicketRecord => ({
  request: { ticketId, template: 'coop', party: [{ playerId: `p-${ticketId}`, score: undefined }], partition: new Map(), matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] },
  createdAt: 0,
  arrival,
});

describe.each(redisTargets())('a large step on $name', (target) => {
  it(`commits ${WRITES.toLocaleString('en')} writes whole, and reads as many kept assignments`, async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    await defineScripts(client);
    // The sharded node's writer: every command auto-pipelined (src/redis/shards/sharded-node.ts).
    const writer = (client as unknown as { duplicate(o: object): RedisClient }).duplicate({ enableAutoPipelining: true });
    await defineScripts(writer);
    try {
      const keys = shardRelayKeys(7);
      const store = await RedisOwnerStore.open(client, (client as unknown as { duplicate(): RedisClient }).duplicate(), 'node-a', 2_000, 60_000, keys, writer);
      const lease = await store.acquire();
      if (!lease.held) throw new Error('the shard lease is not free');
      const { token } = lease;
      const writes: OwnerWrite[] = [];
      for (let i = 0; i < WRITES; i++) writes.push({ kind: 'record', ticketId: `t${i}`, record: record(`t${i}`, i) });
      await expect(store.commit(token, writes)).resolves.toBe('written');
      expect(await client.hlen(keys.tickets)).toBe(WRITES);
      // The connection still works after it (a failed spread left ioredis' pipeline broken).
      const kept = await store.keptAnswers(Array.from({ length: WRITES }, (_, i) => `t${i}`));
      expect(kept).toHaveLength(WRITES);
      expect(kept.every((k) => k === undefined)).toBe(true);
      // An acknowledgement of more entries than Lua's unpack takes at once (a few thousand).
      const pipeline = (client as Redis).pipeline();
      for (let i = 0; i < 9_000; i++) pipeline.xadd(keys.inbox, '*', 'm', 'x');
      await pipeline.exec();
      const read = await store.readInbox(9_000, 100);
      expect(read).toHaveLength(9_000);
      await expect(store.commit(token, [{ kind: 'ack', entryIds: read.map((e) => e.id) }])).resolves.toBe('written');
      expect(await client.xlen(keys.inbox)).toBe(0);
      await store.release(token);
    } finally {
      writer.disconnect();
    }
  }, 60_000);

  it('claims and releases the players of thousands of finds in one call (on a Cluster, one per claim bucket)', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    const claims = new RedisPlayerClaims(client, 60_000);
    const players = Array.from({ length: WRITES }, (_, i) => `p${i}`);
    const answers = await Promise.all(players.map((p, i) => claims.claim(`c${i}`, i % 64, [p]).then((x) => x.conflict)));
    expect(answers.every((a) => a === undefined)).toBe(true);
    expect([await client.get(playerClaimKey('p0')), await client.get(ticketClaimKey('c0'))]).toEqual(['0:c0', '0:c0']);
    await Promise.all(players.map((p, i) => claims.release(`c${i}`, i % 64, [p])));
    expect([await client.exists(playerClaimKey('p0')), await client.exists(ticketClaimKey('c0'))]).toEqual([0, 0]);
  }, 60_000);
});
