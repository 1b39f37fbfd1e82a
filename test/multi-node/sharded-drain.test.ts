/**
 * A rolling restart of a sharded cluster: a node drained with SIGTERM hands its shards over, its
 * clients' waiting tickets resume on the other node with their places, and its game servers
 * reconnect there; nothing is lost and no ticket is doubled.
 */
import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import { describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { ownedShards } from './shard-log.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';

const PARTITION = { difficulty: 'hard', hardcore: false, version: 'v201' };

describe('a sharded node drained with SIGTERM', () => {
  const cluster = shardedProcesses();

  it('its shards move to the other node, its waiting tickets resume there and are each served once, and its servers follow', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');

    // No slot yet: the tickets queue for one.
    const created: string[][] = [];
    const server = new GameServer({
      addresses: [a.address, b.address],
      serverId: 'gs1',
      endpoint: '127.0.0.1:7001',
      attributes: { version: 'v201' },
      templates: ['diablo'],
      capacity: { maxGames: 0 },
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
      createGame: (order) => {
        created.push(order.players.map((p) => p.playerId));
        return `game-${created.length}`;
      },
    });
    const players = new Matchmaker({ addresses: [a.address, b.address] });
    cluster.onClose(() => {
      server.close();
      players.close();
    });
    await server.start();
    const tickets = Array.from({ length: 6 }, (_, i) => players.find({ ticketId: `t${i}`, template: 'diablo', party: [`p${i}`], partition: PARTITION }));
    const queued = new Set<number>();
    const heard: string[][] = tickets.map(() => []);
    tickets.forEach((t, i) => {
      t.on('queued', (q) => (queued.add(i), heard[i]!.push(`queued ${q.position}`)));
      t.on('resuming', () => heard[i]!.push('resuming'));
      t.on('failed', (e) => heard[i]!.push(`failed ${e.message}`));
    });
    await until(() => queued.size === 6, 20_000, 'every ticket queues');

    a.signal('SIGTERM');
    await until(() => !a.running && ownedShards(b.log).size === 64, 30_000, 'a drains and exits, b takes its shards');
    // Slots open: every ticket gets a game, each once, at most four to a game.
    server.setCapacity({ maxGames: 6 });
    const assignments = await Promise.race([
      Promise.all(tickets.map((t) => t.assignment)),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`not every ticket assigned in 20 s: ${JSON.stringify(heard)} created ${JSON.stringify(created)}\nb:\n${b.log.slice(-4000)}`)), 20_000),
      ),
    ]);
    const perGame = new Map<string, number>();
    for (const x of assignments) perGame.set(x.gameId, (perGame.get(x.gameId) ?? 0) + 1);
    expect([...perGame.values()].every((n) => n <= 4)).toBe(true);
    // Each player was ordered into one game (a creation's players, or a seat in a running one).
    const ordered = created.flat();
    expect(new Set(ordered).size).toBe(ordered.length);
    // The drained node's calls resumed on the other one.
    expect(heard.some((h) => h.includes('resuming'))).toBe(true);
  }, 90_000);
});
