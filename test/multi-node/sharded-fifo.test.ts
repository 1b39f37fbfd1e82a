/**
 * FIFO within a factory across nodes, in sharded mode: real coordinator processes on a real
 * redis-server. Finds of one factory arrive alternately through both nodes (each one queued, as
 * its client sees, before the next is sent) while no game server slot is free; then a server
 * gets one slot, and games of 4 are made one after another. The tickets must be placed in arrival
 * order: the k-th game holds exactly the k-th four tickets, and its CreateGame seats only them.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceError } from '@grpc/grpc-js';
import type { Assignment, FindGameUpdate, MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';
import { findGameRequest } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
import { PARTITION } from './cluster-fixture.js';
import { ownedShards } from './shard-log.js';

const TICKETS = 12;
const PER_GAME = 4;

/** A find whose first "queued" update and assignment are awaited apart. */
function findQueued(client: MatchmakerClient, ticketId: string): { queued: Promise<void>; assigned: Promise<Assignment> } {
  const call = client.findGame(findGameRequest({ ticketId, template: 'diablo', party: [`p-${ticketId}`], partition: { ...PARTITION } }));
  let onQueued!: () => void;
  let onFail!: (e: Error) => void;
  const queued = new Promise<void>((resolve, reject) => ((onQueued = resolve), (onFail = reject)));
  const assigned = new Promise<Assignment>((resolve, reject) => {
    call.on('data', (update: FindGameUpdate) => {
      if (update.update?.$case === 'queued') onQueued();
      if (update.update?.$case === 'assignment') resolve(update.update.value);
    });
    call.on('error', (error: ServiceError) => (onFail(error), reject(error)));
    call.on('end', () => reject(new Error(`ticket ${ticketId}: stream ended without an assignment`)));
  });
  assigned.catch(() => undefined);
  return { queued, assigned };
}

describe('sharded nodes: FIFO within a factory across nodes', () => {
  const cluster = shardedProcesses();

  it('finds through both nodes, queued for want of a slot, are placed in arrival order', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'a and b hold half the shards each');

    // One server of the factory, no slot free yet; a game ends as soon as it is full.
    const server = new GameServerConnection(a.address, { serverId: 's1', endpoint: 's1:7777', attributes: { ...PARTITION }, templates: ['diablo'], maxGames: 0 }, { autoJoin: true, endWhenFull: PER_GAME });
    cluster.onClose(() => server.close());
    await server.connect();
    const clients = [a.matchmaker(), b.matchmaker()];
    cluster.onClose(() => clients.forEach((c) => c.close()));

    const arrival: string[] = [];
    const assignments: Promise<Assignment>[] = [];
    for (let i = 0; i < TICKETS; i++) {
      const ticketId = `t${i}`;
      const find = findQueued(clients[i % 2]!, ticketId); // alternately through a and b
      await find.queued; // in the factory's queue before the next is sent: this is its arrival order
      arrival.push(`p-${ticketId}`);
      assignments.push(find.assigned);
    }
    server.setCapacity(1);
    const assigned = await Promise.race([Promise.all(assignments), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not all assigned within 60 s')), 60_000))]);

    // The k-th four arrivals share one game, and no other ticket is in it.
    const blocks = Array.from({ length: TICKETS / PER_GAME }, (_, k) => assigned.slice(k * PER_GAME, (k + 1) * PER_GAME).map((x) => x.gameId));
    expect(blocks.map((ids) => new Set(ids).size)).toEqual(blocks.map(() => 1));
    expect(new Set(blocks.map((ids) => ids[0])).size).toBe(blocks.length);
    // Games were created in that order: the k-th CreateGame seats only players of the k-th four.
    const creations = server.orders.flatMap((m) => (m.order?.$case === 'createGame' ? [m.order.value.seats.map((s) => s.playerId)] : []));
    expect(creations).toHaveLength(blocks.length);
    creations.forEach((seats, k) => {
      const block = arrival.slice(k * PER_GAME, (k + 1) * PER_GAME);
      expect(seats.length).toBeGreaterThan(0);
      expect(seats.every((p) => block.includes(p)), `game ${k} seats ${seats.join(',')}, arrivals ${block.join(',')}`).toBe(true);
    });
  }, 150_000);
});
