/**
 * Real sharded nodes on one Redis, and the game-server SDK: the node holding a server's stream is
 * killed with -9 while the server is still making a game that a shard's owner on the other node
 * ordered. The server reconnects to the survivor listing the order (`pending_creations`); the
 * survivor never saw the order, reads its shard from its id, and the late answer is the ticket's
 * game: one order, the player seated in the game the server made.
 */
import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import { describe, expect, it } from 'vitest';
import { shardOfFactory } from '../../src/sharding/index.js';
import { until } from '../support/until.js';
import { ownedShards } from './shard-log.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';

const DIFFICULTIES = ['normal', 'hard', 'expert', 'master', 'torment'];
/** The ten factories a server of version v201 hosts (factories.yaml), with their shards. */
const FACTORIES = DIFFICULTIES.flatMap((difficulty) =>
  [false, true].map((hardcore) => {
    const name = `diablo/difficulty=${difficulty}/hardcore=${hardcore}/version=v201`;
    return { name, shard: shardOfFactory(name, 64), partition: { difficulty, hardcore, version: 'v201' } };
  }),
);

describe("a server whose node dies mid-creation, ordered by the other node's shard", () => {
  const cluster = shardedProcesses();

  it('reconnects to the survivor listing the order, and its late answer is the ticket’s game: no second order', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');
    // Not the server's first shard: an answer no node can place would go there (and be refused).
    const first = Math.min(...FACTORIES.map((f) => f.shard));
    const factory = FACTORIES.find((f) => f.shard !== first)!;
    const [owner, holder] = ownedShards(a.log).has(factory.shard) ? [a, b] : [b, a];

    let make: ((gameId: string) => void) | undefined;
    const orders: string[] = [];
    const addresses: string[] = [];
    const server = new GameServer({
      addresses: [holder.address, owner.address],
      serverId: 'mover',
      endpoint: 'mover:7777',
      attributes: { version: 'v201' },
      templates: ['diablo'],
      capacity: { maxGames: 10 },
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
      createGame: (order) => {
        orders.push(order.requestId);
        return new Promise<string>((resolve) => (make = resolve));
      },
    });
    server.on('connected', ({ address }) => addresses.push(address));
    const players = new Matchmaker({ addresses: owner.address });
    cluster.onClose(() => {
      server.close();
      players.close();
    });
    await server.start();
    await until(() => addresses.length === 1, 10_000, 'the server connects to its node');
    // Seen by the owner: its shard's core knows the server (the holder relays its hello).
    const ticket = players.find({ template: 'diablo', party: ['slow'], partition: factory.partition, ticketId: 'slow' });
    const heard: string[] = [];
    ticket.on('queued', (q) => heard.push(`queued ${JSON.stringify(q)}`));
    ticket.on('failed', (e) => heard.push(`failed ${e.message}`));
    await until(() => make !== undefined, 20_000, 'the owner orders the game through the holder').catch((e: Error) => {
      throw new Error(`${e.message}; the ticket heard ${heard.join(', ')}\nowner:\n${owner.log.slice(-2500)}\nholder:\n${holder.log.slice(-2500)}`);
    });

    holder.signal('SIGKILL');
    await until(() => addresses.length === 2, 10_000, 'the server reconnects to the survivor');
    expect(addresses[1]).toBe(owner.address);
    await new Promise((r) => setTimeout(r, 500)); // time enough to order it again, if it would
    make!('slow-game');
    const assignment = await Promise.race([
      ticket.assignment,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no assignment in 20 s; orders: ${orders.join(', ')}`)), 20_000)),
    ]);
    expect(orders).toHaveLength(1);
    expect(assignment.gameId).toBe('slow-game');
    expect(orders[0]).toMatch(new RegExp(`^s${factory.shard}\\.`));
  }, 90_000);
});
