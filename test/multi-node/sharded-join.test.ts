/**
 * "Nothing lost" while shards move: real sharded nodes on a real Redis, finds streaming into the
 * first node while a second node joins and takes half of the 64 shards. Every find must end in
 * exactly one assignment, without the client retrying, and the game servers' streams stay open:
 * a shard's new owner is told of them by the gateways. (The bench lost tickets at 2 and 4 nodes
 * because every shard move closed every game server stream, and its servers did not reconnect.)
 */
import { describe, expect, it } from 'vitest';
import { hasRedis, shardedProcesses } from './sharded-processes.js';
import { findGame } from '../support/find-game.js';
import { NodeProcess } from './node-process.js';
import { until } from '../support/until.js';
import { GameServerConnection } from '../support/game-server-connection.js';

const owned = (node: NodeProcess) => (node.log.match(/this node now owns a shard/g)?.length ?? 0) - (node.log.match(/this node no longer owns a shard/g)?.length ?? 0);
const PARTITIONS = ['normal', 'hard', 'expert', 'master'].flatMap((difficulty) => [false, true].map((hardcore) => ({ difficulty, hardcore, version: 'v201' })));

describe('sharded nodes: a node joins under load', () => {
  const cluster = shardedProcesses();

  it('every find sent while half the shards move to a joining node is assigned once, with no retry', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => owned(a) === 64, 20_000, 'a takes every shard');
    // Servers of every factory that do not reconnect: a closed stream would strand their games.
    const servers = ['s1', 's2'].map((serverId) => new GameServerConnection(a.address, { serverId, endpoint: `${serverId}:7777`, maxGames: 200 }, { autoJoin: true, endWhenFull: 4 }));
    cluster.onClose(() => servers.forEach((s) => s.close()));
    await Promise.all(servers.map((s) => s.connect()));
    const client = a.matchmaker();
    cluster.onClose(() => client.close());

    const outcomes = new Map<string, string>();
    const one = (i: number) => {
      const ticketId = `t${i}`;
      const playerId = `p-${ticketId}`;
      return findGame(client, { ticketId, template: 'diablo', party: [playerId], partition: PARTITIONS[i % PARTITIONS.length]! }).then(
        (r) => outcomes.set(ticketId, ['s1', 's2'].includes(r.assignment.serverId) ? 'assigned' : `assigned to ${r.assignment.serverId}`),
        (error: Error) => outcomes.set(ticketId, `failed: ${error.message}`),
      );
    };
    // Finds keep arriving for ~4 s; b starts after the first second and takes half the shards.
    const finds: Promise<unknown>[] = [];
    let b: NodeProcess | undefined;
    const joining = (async () => {
      await new Promise((r) => setTimeout(r, 1000));
      b = await cluster.start();
    })();
    for (let i = 0; i < 160; i++) {
      finds.push(one(i));
      await new Promise((r) => setTimeout(r, 25));
    }
    await joining;
    await until(() => owned(b!) === 32, 20_000, 'b takes half the shards');
    // A few more once the shards settled, so every factory's last game can fill.
    for (let i = 160; i < 192; i++) finds.push(one(i));
    await Promise.race([Promise.all(finds), new Promise((r) => setTimeout(r, 30_000))]);
    const failed = [...outcomes].filter(([, o]) => o !== 'assigned');
    expect({ answered: outcomes.size, failed: failed.slice(0, 5) }).toEqual({ answered: 192, failed: [] });
    expect(servers.map((s) => s.ended)).toEqual([undefined, undefined]);
  }, 90_000);
});
