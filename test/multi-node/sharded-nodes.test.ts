/**
 * Real `gamefactory start --redis … --cluster-mode sharded` processes on one real Redis: the
 * shards spread over the nodes, finds on one node are placed on servers of the other, and a
 * node's kill -9 moves its shards to the survivor within the lease.
 */
import { describe, expect, it } from 'vitest';
import { hasRedis, shardedProcesses } from './sharded-processes.js';
import { NodeProcess } from './node-process.js';
import { until } from '../support/until.js';
import { ReconnectingServer, find, retried } from './cluster-fixture.js';

const owned = (node: NodeProcess) => node.log.match(/this node now owns a shard/g)?.length ?? 0;

describe('sharded nodes on one Redis', () => {
  const cluster = shardedProcesses();

  it('the shards spread over two nodes; finds on one reach servers on the other; a kill -9 moves its shards within 3 s', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => owned(a) === 64, 20_000, 'a takes every shard').catch((e: Error) => {
      throw new Error(`${e.message}: owned ${owned(a)}\n${a.log.slice(-3000)}`);
    });
    const b = await cluster.start();
    // b takes its share: a hands over the shards the plan gives b.
    await until(() => owned(b) === 32, 20_000, 'b takes half the shards');

    let serversAt = a.address;
    const servers = [new ReconnectingServer(() => serversAt, 's1', 4), new ReconnectingServer(() => serversAt, 's2', 4)];
    cluster.onClose(() => servers.forEach((s) => s.close()));
    await Promise.all(servers.map((s) => s.connect()));
    const client = b.matchmaker();
    cluster.onClose(() => client.close());
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => retried(() => find(client, `t${i}`), 20_000)));
    const games = new Map<string, number>();
    for (const r of results) games.set(r.assignment.gameId, (games.get(r.assignment.gameId) ?? 0) + 1);
    expect([...games.values()].every((n) => n <= 4)).toBe(true);
    expect(results.every((r) => r.assignment.serverId === 's1' || r.assignment.serverId === 's2')).toBe(true);

    // a dies: b owns every shard again within the lease (2 s) and a tick, and serves finds.
    const killedAt = Date.now();
    serversAt = b.address; // they reconnect there
    a.signal('SIGKILL');
    await until(() => owned(b) === 64, 10_000, 'b takes a’s shards');
    expect(Date.now() - killedAt).toBeLessThan(3000 + 2000); // ≤ 3 s, with room for a loaded machine
    const after = await retried(() => find(client, 'late'), 20_000);
    expect(['s1', 's2']).toContain(after.assignment.serverId);
  }, 90_000);

  it('a paused node loses its shards within 3 s, finds go on through the survivor, and on waking it stops acting for them', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => owned(a) === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => owned(b) === 32, 20_000, 'b takes half the shards');
    const servers = [new ReconnectingServer(() => b.address, 's1', 8)];
    cluster.onClose(() => servers.forEach((s) => s.close()));
    await Promise.all(servers.map((s) => s.connect()));
    const client = b.matchmaker();
    cluster.onClose(() => client.close());

    const pausedAt = Date.now();
    const logBefore = a.log.length;
    a.signal('SIGSTOP');
    await until(() => owned(b) === 64, 10_000, 'b takes the paused node’s shards');
    expect(Date.now() - pausedAt).toBeLessThan(3000 + 2000); // ≤ 3 s, with room for a loaded machine
    // Each player joins its game, as a client does: a server that reconnects re-announces its players.
    const seated = (id: string) =>
      retried(() => find(client, id), 20_000).then((r) => {
        servers[0]!.join(r.assignment.gameId, `p-${id}`);
        return r;
      });
    const during = await Promise.all(Array.from({ length: 8 }, (_, i) => seated(`p${i}`)));
    a.signal('SIGCONT');
    // Awake, it finds its leases gone: it stops acting for those shards (its writes are fenced).
    await a.waitFor(/this node no longer owns a shard/, 10_000, logBefore);
    const after = await Promise.all(Array.from({ length: 8 }, (_, i) => seated(`q${i}`)));
    const games = new Map<string, number>();
    for (const r of [...during, ...after]) games.set(r.assignment.gameId, (games.get(r.assignment.gameId) ?? 0) + 1);
    expect([...games.values()].every((n) => n <= 4)).toBe(true);
  }, 90_000);
});
