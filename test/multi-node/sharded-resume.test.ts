/**
 * The relay mode's resume and ghost-server cases (multi-node.test.ts), on sharded nodes (the
 * default with --redis): a client resuming on another node keeps its place, and a node killed
 * with a game server that never comes back has its creations moved at the heartbeat lapse.
 */
import { describe, expect, it } from 'vitest';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
import { PARTITION, expectResumeKeepsPlace, find, retried, server } from './cluster-fixture.js';
import { ownedShards } from './shard-log.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';

describe('sharded nodes: resume and a ghost server', () => {
  const cluster = shardedProcesses();
  const twoNodes = async () => {
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');
    return { a, b };
  };

  it('a client resumes on another node with the same ticket id: its assignment, or its place', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { a, b } = await twoNodes();
    await expectResumeKeepsPlace(a, b);
  }, 60_000);

  it('kill -9 of a node whose server never comes back: the ghost leaves at the heartbeat lapse, its creations move, nothing lost or doubled', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { a, b } = await twoNodes();
    // s1, on B, takes creations and never confirms them: they are in flight when B dies.
    const ghost = new GameServerConnection(b.address, { serverId: 's1', endpoint: 's1:7777', attributes: { ...PARTITION }, templates: ['diablo'], maxGames: 4 }, { decide: () => 'ignore' });
    const client = a.matchmaker();
    cluster.onClose(() => (client.close(), ghost.close()));
    await ghost.connect();
    const ids = Array.from({ length: 12 }, (_, i) => `g${i}`);
    const first = ids.slice(0, 8).map((id) => find(client, id));
    await retried(async () => expect(ghost.orders.filter((o) => o.order?.$case === 'createGame').length).toBeGreaterThanOrEqual(2), 10_000);
    const s2 = server(a.address, 's2', 3);
    cluster.onClose(() => s2.close());
    await s2.connect();
    b.signal('SIGKILL');
    const results = await Promise.all([...first, ...ids.slice(8).map((id) => find(client, id))]);
    expect(results.map((r) => r.assignment.serverId)).toEqual(ids.map(() => 's2'));
    // The assignment and the server's seats travel different roads (the client's stream, the
    // server's orders and its admissions), so the last players may be seated a moment later.
    const games = () => [...s2.games.values()];
    await retried(async () => expect(games().flatMap((g) => [...g.players]).sort()).toEqual(ids.map((id) => `p-${id}`).sort()), 10_000);
    expect(games().map((g) => g.players.size).filter((n) => n > 4)).toEqual([]);
    // Taken back at the lapse, not after the ghost's confirm timeout.
    expect(a.log).not.toMatch(/did not confirm a creation in time/);
  }, 60_000);
});
