import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { findGameRequest } from '../support/find-game.js';
import type { FindGameUpdate, FindGamesRequest, MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator, eventually } from './harness.js';

// Issue 15: batched FindGames and coalesced link messages, with the old one-per-message shapes
// still accepted and still answered one per message.
const YAML = `
placement: { policy: fill, createTimeoutMs: 2000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: party
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;

const request = (id: string) => findGameRequest({ ticketId: id, template: 'party', party: [`${id}-player`], partition: { region: 'eu' } });

/** Opens FindGames, writes `messages`, half-closes; resolves with every message received once the stream ends. */
function exchange(client: MatchmakerClient, messages: FindGamesRequest[]): Promise<FindGameUpdate[]> {
  return new Promise((resolve, reject) => {
    const call = client.findGames();
    const received: FindGameUpdate[] = [];
    call.on('data', (u: FindGameUpdate) => received.push(u));
    call.on('error', reject);
    call.on('end', () => resolve(received));
    for (const m of messages) call.write(m);
    call.end();
  });
}

const unpack = (messages: FindGameUpdate[]) => messages.flatMap((m) => (m.update?.$case === 'batch' ? m.update.value.updates : [m]));

describe('batching (issue 15)', () => {
  let coordinator: TestCoordinator;
  afterEach(async () => {
    await coordinator.stop();
  });

  it('an old FindGames client (one find per message) gets one update per message, never a batch', async () => {
    coordinator = await TestCoordinator.start(YAML);
    const server = await coordinator.server({ serverId: 's1' }, { autoJoin: true });
    const ids = ['a1', 'a2', 'a3', 'a4'];
    const received = await exchange(coordinator.client(), ids.map((id) => ({ request: { $case: 'find', value: request(id) } })));
    expect(received.every((m) => m.update?.$case !== 'batch' && m.ticketId !== '')).toBe(true);
    expect(received.filter((m) => m.update?.$case === 'assignment').map((m) => m.ticketId).sort()).toEqual(ids);
    // A server that did not ask for batches gets every order alone.
    expect(server.batchesReceived).toBe(0);
    expect(server.orders.some((o) => o.order?.$case === 'createGame')).toBe(true);
  });

  it('one FindGamesBatch carries finds and cancels; the answers come back batched, fewer messages than updates', async () => {
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 's1' }, { autoJoin: true });
    const ids = Array.from({ length: 9 }, (_, i) => `b${i}`);
    const received = await exchange(coordinator.client(), [
      { request: { $case: 'batch', value: { finds: ids.map(request), cancels: [{ ticketId: 'b8' }] } } },
    ]);
    expect(received.every((m) => m.update?.$case === 'batch')).toBe(true);
    const updates = unpack(received);
    expect(received.length).toBeLessThan(updates.length);
    const assigned = updates.filter((u) => u.update?.$case === 'assignment').map((u) => u.ticketId);
    expect(assigned.sort()).toEqual(ids.slice(0, 8));
    const cancelled = updates.find((u) => u.ticketId === 'b8' && u.update?.$case === 'error');
    expect(cancelled?.update?.$case === 'error' && cancelled.update.value.code).toBe(status.CANCELLED);
  });

  it('a batch with a bad find fails that ticket alone; a batch over the limit fails its tickets with INVALID_ARGUMENT', async () => {
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 's1' }, { autoJoin: true });
    const bad = { ...request('c2'), party: [] };
    const updates = unpack(
      await exchange(coordinator.client(), [{ request: { $case: 'batch', value: { finds: [request('c1'), bad], cancels: [] } } }]),
    );
    expect(updates.find((u) => u.ticketId === 'c1')?.update?.$case).toBe('assignment');
    const failed = updates.find((u) => u.ticketId === 'c2');
    expect(failed?.update?.$case === 'error' && failed.update.value.code).toBe(status.INVALID_ARGUMENT);

    const tooMany = Array.from({ length: 1025 }, (_, i) => request(`d${i}`));
    const refused = unpack(await exchange(coordinator.client(), [{ request: { $case: 'batch', value: { finds: tooMany, cancels: [] } } }]));
    expect(refused).toHaveLength(1025);
    expect(refused.every((u) => u.update?.$case === 'error' && u.update.value.code === status.INVALID_ARGUMENT)).toBe(true);
  });

  it('thousands of finds in one burst, half-closed at once: every one is handled, in order, before the stream ends', async () => {
    // More than the coordinator handles in one event-loop turn (transport/grpc/input-pacer.ts): the
    // rest wait for later turns, and the client's end waits behind them.
    coordinator = await TestCoordinator.start(YAML);
    await coordinator.server({ serverId: 's1', maxGames: 1000 }, { autoJoin: true, batch: true });
    const ids = Array.from({ length: 3 * 1024 }, (_, i) => `f${i}`);
    const batches: FindGamesRequest[] = [0, 1, 2].map((b) => ({
      request: { $case: 'batch', value: { finds: ids.slice(b * 1024, (b + 1) * 1024).map(request), cancels: [] } },
    }));
    batches.push({ request: { $case: 'cancel', value: { ticketId: 'f3071' } } });
    const updates = unpack(await exchange(coordinator.client(), batches));
    const assigned = updates.filter((u) => u.update?.$case === 'assignment').map((u) => u.ticketId);
    expect(new Set(assigned).size).toBe(3071);
    expect(assigned).not.toContain('f3071');
    // The cancel came after its find: it found the ticket waiting for its game's fourth player.
    const cancelled = updates.find((u) => u.ticketId === 'f3071' && u.update?.$case === 'error');
    expect(cancelled?.update?.$case === 'error' && cancelled.update.value.code).toBe(status.CANCELLED);
  });

  it('a batching server gets its orders in CoordinatorBatch messages and sends its reports in ServerBatch', async () => {
    coordinator = await TestCoordinator.start(YAML);
    const server = await coordinator.server({ serverId: 's1' }, { autoJoin: true, batch: true });
    const ids = Array.from({ length: 8 }, (_, i) => `e${i}`);
    const updates = unpack(await exchange(coordinator.client(), [{ request: { $case: 'batch', value: { finds: ids.map(request), cancels: [] } } }]));
    expect(updates.filter((u) => u.update?.$case === 'assignment')).toHaveLength(8);
    expect(server.batchesReceived).toBeGreaterThan(0);
    // Its batched reports applied: both games are full on the coordinator's side.
    await eventually(() => [...server.games.values()].filter((g) => g.players.size === 4).length === 2);
    const stats = await new Promise<{ players: bigint }>((resolve, reject) =>
      coordinator.client().queryStats({ factory: '', template: 'party', partitionAttributes: {}, predicates: [], mode: 0 }, (e, r) => (e ? reject(e) : resolve(r!))),
    );
    expect(stats.players).toBe(8n);
  });

  it('a server that floods reports has each handled in order, and its link stays up', async () => {
    // Six batches of 1,024 reports at once: past 2,048 of its reports waiting their turn the link
    // is not read until none waits (game-server-link.ts), and then read on.
    coordinator = await TestCoordinator.start(YAML);
    // Not a batching SDK server: that one would wrap these batches in its own.
    const server = await coordinator.server({ serverId: 's1' }, {});
    let n = 0;
    for (let b = 0; b < 6; b++) {
      const events = Array.from({ length: 1024 }, () => ({ event: { $case: 'gameEnded' as const, value: { gameId: `x${n++}` } } }));
      server.send({ event: { $case: 'batch', value: { events } } });
    }
    await eventually(() => server.rejections.length >= n, 20_000);
    expect(server.rejections).toHaveLength(n);
    expect(server.rejections.map((r) => /"x(\d+)"/.exec(r)?.[1]).map(Number)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(server.ended).toBeUndefined();
  });

  it('a bad report inside a batch is rejected alone; a batch inside a batch is rejected', async () => {
    coordinator = await TestCoordinator.start(YAML);
    const server = await coordinator.server({ serverId: 's1' }, { batch: true });
    server.send({ event: { $case: 'gameEnded', value: { gameId: 'no-such-game' } } });
    server.send({ event: { $case: 'batch', value: { events: [] } } });
    server.send({ event: { $case: 'keepaliveAck', value: { sequence: 1n } } });
    await eventually(() => server.rejections.length >= 2);
    expect(server.rejections).toHaveLength(2);
    expect(server.rejections[0]).toMatch(/no-such-game/);
    expect(server.rejections[1]).toMatch(/batch inside a batch/);
    expect(server.ended).toBeUndefined();
  });
});
