/**
 * Several real coordinator processes sharing one real Redis: fill-up across nodes,
 * FIFO across nodes, kill -9 of the matcher owner under load, a paused owner's stale writes,
 * a client resuming on another node, a Redis restart with AOF, a dead node's server that never
 * comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from './node-process.js';
import { findGameRequest } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { PARTITION, ReconnectingServer, expectResumeKeepsPlace, find, healthOf, retried, server } from './cluster-fixture.js';

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
  expect(seats.map((g) => g.size).filter((n) => n > 4)).toEqual([]);
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
    admin.on('error', () => undefined); // down on purpose in the restart case
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
    // A client's assignment and its server's ReserveSeats travel different roads (node B's out
    // stream, node A's outbox), so the last seats may land a moment after the last assignment.
    const seated = () => servers.flatMap((s) => [...s.games.values()].flatMap((g) => [...g.players]));
    for (const deadline = Date.now() + 10_000; seated().length < 16 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    const players = [...seated()].sort();
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
    await expectResumeKeepsPlace(a, b);
  }, 60_000);

  it('FIFO across nodes: tickets queued on alternate nodes are placed in arrival order', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    const s = server(a.address, 's1', 0);
    await s.connect();
    const clients = [a.matchmaker(), b.matchmaker()];
    const positions: number[] = [];
    const found: Promise<unknown>[] = [];
    for (let i = 0; i < 6; i++) {
      // One at a time, so the arrival order is the order asked; each on the other node.
      const first = new Promise<number>((resolve, reject) => {
        const call = clients[i % 2]!.findGame(findGameRequest({ ticketId: `f${i}`, template: 'diablo', party: [`p-f${i}`], partition: { ...PARTITION } }));
        call.on('data', (u: { update?: { $case: string; value: { position?: number } } }) => {
          if (u.update?.$case === 'queued') resolve(u.update.value.position!);
        });
        call.on('error', (e) => reject(e));
        found.push(new Promise((r) => call.on('close', r)));
      });
      positions.push(await first);
    }
    // Four seats per game: the first four tickets share the first creation in line, the next ones the second.
    expect(positions).toEqual([1, 1, 1, 1, 2, 2]);
    clients.forEach((c) => c.close());
    s.close();
  }, 60_000);

  it('a paused owner (SIGSTOP past its lease, then SIGCONT) has its stale writes refused', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    const servers = new Map([['s1', new ReconnectingServer(() => b.address, 's1', 10)]]);
    await servers.get('s1')!.connect();
    await a.waitFor(/game server connected/, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // A is back in its blocking read of the inbox
    const client = b.matchmaker();
    const from = b.log.length;
    a.signal('SIGSTOP');
    // Sent at once: A's pending blocking read takes them, then A sleeps with them in hand.
    const ids = Array.from({ length: 8 }, (_, i) => `z${i}`);
    const seated = seatAll(() => client, servers, ids);
    await loggedAt(b, OWNER, 10_000, from);
    await seated;
    const aFrom = a.log.length;
    a.signal('SIGCONT');
    await a.waitFor(/a stale write was refused|no longer runs the matcher/, 10_000, aFrom);
    await new Promise((r) => setTimeout(r, 500));
    // Woken, A writes what it read and is refused by the fence, or (when it reads the finds' kept
    // assignments first, early in its term) learns of its lost lease before writing at all.
    expect(a.log.slice(aFrom), a.log.slice(-4000)).toMatch(/a stale write was refused|this node no longer runs the matcher/);
    expectSeatedOnce(servers.values(), ids);
    // What A read and never acknowledged is the new owner's a lease later.
    const pendingBy = Date.now() + 10_000;
    while ((await admin.xpending('gf:{relay}:inbox', 'owner'))[0] !== 0 && Date.now() < pendingBy) await new Promise((r) => setTimeout(r, 100));
    expect(await admin.xpending('gf:{relay}:inbox', 'owner')).toEqual([0, null, null, null]);
    client.close();
    servers.forEach((s) => s.close());
  }, 60_000);

  it('Redis restart with AOF: NOT_SERVING and UNAVAILABLE while it is down, then the waiting ticket is served', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const s = new ReconnectingServer(() => a.address, 's1', 0);
    await s.connect();
    const client = a.matchmaker();
    const queued = new Promise<void>((resolve, reject) => {
      const call = client.findGame(findGameRequest({ ticketId: 'w1', template: 'diablo', party: ['p-w1'], partition: { ...PARTITION } }));
      call.on('data', () => resolve());
      call.on('error', reject);
    });
    await queued;
    const port = redis.port;
    const dir = redis.dir;
    await redis.kill('SIGKILL');
    await retried(async () => expect(await healthOf(a.address)).toBe('NOT_SERVING'), 5_000);
    // Bounded, so a find taken in while Redis is down fails here rather than timing the test out.
    await expect(find(client, 'w2', AbortSignal.timeout(10_000))).rejects.toThrow(/UNAVAILABLE|redis unreachable/);
    redis = await RedisServer.start({ appendfsync: 'always', port, dir });
    await retried(async () => expect(await healthOf(a.address)).toBe('SERVING'), 10_000);
    // The ticket acknowledged before the crash is still in line: the client asks again with its id.
    const resumed = retried(() => find(client, 'w1', AbortSignal.timeout(15_000)), 20_000);
    await new Promise((r) => setTimeout(r, 1_000));
    s.setCapacity(2); // also in the hello, if the matcher moved while Redis was down
    expect((await resumed).assignment.serverId).toBe('s1');
    client.close();
    s.close();
  }, 60_000);

  it('kill -9 of a node holding clients and servers: they resume on another node, nothing lost or doubled', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    let home = b;
    const servers = new Map(['s1', 's2'].map((id) => [id, new ReconnectingServer(() => home.address, id, 10)]));
    await Promise.all([...servers.values()].map((s) => s.connect()));
    let client = b.matchmaker();
    const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
    const all = seatAll(() => client, servers, ids);
    await new Promise((r) => setTimeout(r, 150));
    // B dies: its clients call again with their ticket ids on A, its servers reconnect to A.
    home = a;
    client = a.matchmaker();
    b.signal('SIGKILL');
    expect(await all).toHaveLength(40);
    expectSeatedOnce(servers.values(), ids);
    await retried(async () => expect([...servers.values()].map((s) => s.reconnects >= 1)).toEqual([true, true]), 5_000);
    client.close();
    servers.forEach((s) => s.close());
  }, 60_000);

  it('kill -9 of a node whose server never comes back: the ghost leaves at the heartbeat lapse, its creations move, nothing lost or doubled', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await start();
    await a.waitFor(OWNER, 10_000);
    const b = await start();
    // s1, on B, takes creations and never confirms them: they are in flight when B dies, and its
    // two other slots look free to the owner until the owner sees B's heartbeat lapse.
    const ghost = new GameServerConnection(b.address, { serverId: 's1', endpoint: 's1:7777', attributes: { ...PARTITION }, templates: ['diablo'], maxGames: 4 }, { decide: () => 'ignore' });
    await ghost.connect();
    await a.waitFor(/game server connected/, 10_000);
    const client = a.matchmaker();
    const ids = Array.from({ length: 12 }, (_, i) => `g${i}`);
    const first = ids.slice(0, 8).map((id) => find(client, id));
    await retried(async () => expect(ghost.orders.filter((o) => o.order?.$case === 'createGame').length).toBeGreaterThanOrEqual(2), 10_000);
    const s2 = server(a.address, 's2', 3);
    await s2.connect();
    const from = a.log.length;
    b.signal('SIGKILL');
    await a.waitFor(/heartbeat lapsed/, 10_000, from);
    const results = await Promise.all([...first, ...ids.slice(8).map((id) => find(client, id))]);
    expect(results.map((r) => r.assignment.serverId)).toEqual(ids.map(() => 's2'));
    // The assignment and the server's seats travel different roads (the client's stream, the
    // server's orders and its admissions), so the last players may be seated a moment later.
    const games = () => [...s2.games.values()];
    await retried(async () => expect(games().flatMap((g) => [...g.players]).sort()).toEqual(ids.map((id) => `p-${id}`).sort()), 10_000);
    expect(games().map((g) => g.players.size).filter((n) => n > 4)).toEqual([]);
    // Taken back at the lapse, not after the ghost's confirm timeout.
    expect(a.log).not.toMatch(/did not confirm a creation in time/);
    client.close();
    ghost.close();
    s2.close();
  }, 60_000);
});
