/**
 * Slots follow demand in sharded mode: real coordinator processes on a real redis-server. One
 * game server hosts every factory (about 18 of the 64 shards) with 8 slots, so an even split
 * gives a shard one slot at most (or none). Finds of one factory arrive through the other node;
 * its players never come, so each game holds its 4 seats: a game per 4 finds, each on a slot of
 * the busy shard. The node's grant loop must move most of the server's slots to that shard
 * within a few rounds (2 s each), so several of its games run at once, and never more than the
 * server's slots. The server's stream used to be closed as the shards spread (a hello
 * claimed late from an owner that stepped down replaced the newer one; relay-stale-hello.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { hasRedis, shardedProcesses } from './sharded-processes.js';
import { findGame } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
import { PARTITION } from './cluster-fixture.js';
import { ownedShards } from './shard-log.js';


describe('sharded nodes: a server’s slots follow demand', () => {
  const cluster = shardedProcesses();

  it('the busy shard gets most of a server’s slots within a few grant rounds; the server never gets more games than slots', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'a and b hold half the shards each');

    // Every factory of every template (no attributes: all partitions), 8 slots; players never join.
    // It reconnects (games re-announced) if a shard's new owner closes its stream as shards spread.
    const server = new GameServerConnection(a.address, { serverId: 's1', endpoint: 's1:7777', maxGames: 8 }, { reconnect: true });
    cluster.onClose(() => server.close());
    const { factories } = await server.connect();
    expect(factories.length).toBeGreaterThan(16);
    const client = b.matchmaker();
    cluster.onClose(() => client.close());

    const games = new Set<string>();
    const finds = Array.from({ length: 32 }, (_, i) =>
      findGame(client, { ticketId: `t${i}`, template: 'diablo', party: [`p-t${i}`], partition: { ...PARTITION } }).then(
        (r) => games.add(r.assignment.gameId),
        () => undefined,
      ),
    );
    cluster.onClose(() => void Promise.allSettled(finds));
    // An even split gives the factory's shard at most one of the 8 slots: one game of 4 at a time.
    await until(() => games.size >= 4, 40_000, '4 games of the busy factory running at once').catch((error: Error) => {
      const notes = a.log.split('\n').filter((l) => /slot grants moved|slot grant round failed|newer connection/.test(l)).slice(-6);
      throw new Error(`${error.message}: ${games.size} games, ${server.orders.length} orders\n${notes.join('\n')}`);
    });
    const created = () => server.orders.filter((m) => m.order?.$case === 'createGame').length;
    expect(created()).toBeLessThanOrEqual(8);
    expect(server.rejections).toEqual([]);
  }, 120_000);
});
