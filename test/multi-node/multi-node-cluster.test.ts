/**
 * The multi-node mode on a 3-master Redis Cluster started by the test ("Redis Cluster
 * ready"): every relay key shares the hash tag `{relay}`, so each script, MULTI and MGET touches
 * one slot. Fill-up across nodes: servers on node A, players on node B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCluster, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from './node-process.js';
import { find, server } from './cluster-fixture.js';

const hasRedis = redisBinaryPresent();

describe('multi-node on a 3-master Redis Cluster', () => {
  let cluster: RedisCluster;
  const nodes: NodeProcess[] = [];

  beforeAll(async () => {
    if (!hasRedis) return;
    cluster = await RedisCluster.start();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await cluster?.stop();
  });

  it('fill-up across nodes: servers on node A, players on node B, every player seated once', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const url = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
    const a = await NodeProcess.start(url);
    nodes.push(a);
    await a.waitFor(/this node now runs the matcher/, 10_000);
    const b = await NodeProcess.start(url);
    nodes.push(b);
    const servers = [server(a.address, 's1', 2), server(a.address, 's2', 2)];
    await Promise.all(servers.map((s) => s.connect()));
    const client = b.matchmaker();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => find(client, `t${i}`)));
    const games = new Map<string, number>();
    for (const r of results) games.set(r.assignment.gameId, (games.get(r.assignment.gameId) ?? 0) + 1);
    expect([...games.values()]).toEqual([4, 4, 4, 4]);
    // A client's assignment and its server's ReserveSeats travel different roads (node B's out
    // stream, node A's outbox), so the last seats may land a moment after the last assignment.
    const seated = () => servers.flatMap((s) => [...s.games.values()].flatMap((g) => [...g.players]));
    for (const deadline = Date.now() + 10_000; seated().length < 16 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    const players = seated().sort();
    expect(players).toEqual(Array.from({ length: 16 }, (_, i) => `p-t${i}`).sort());
    client.close();
    servers.forEach((s) => s.close());
  }, 60_000);
});
