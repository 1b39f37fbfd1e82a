import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { findGame, findGameRequest, type FindResult } from '../support/find-game.js';
import type { CreateGame } from '../../src/generated/gamefactory/v1/game_server_link.js';
import type { FindGameUpdate, MatchmakerClient, Queued } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator, eventually } from './harness.js';

/** One player a game, so every ticket needs a slot of its own. */
const SOLO_YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 5, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 200 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;

const find = (client: MatchmakerClient, id: string) =>
  findGame(client, { ticketId: id, template: 'solo', party: [id], partition: { region: 'eu' } });

/** Starts a FindGame and resolves once its first queued update arrives (with the call's result). */
function findQueued(coordinator: TestCoordinator, client: MatchmakerClient, id: string) {
  const call = client.findGame({
    ticketId: id,
    template: 'solo',
    party: [{ playerId: id }],
    partitionAttributes: { region: { kind: { $case: 'stringValue', value: 'eu' } } },
    matchableAttributes: {},
    latenciesMs: {},
    preferredMaps: [],
    vetoedMaps: [],
  });
  const result = new Promise<{ queued: Queued[]; gameId?: string; error?: ServiceError }>((resolve) => {
    const queued: Queued[] = [];
    let gameId: string | undefined;
    call.on('data', (u) => {
      if (u.update?.$case === 'queued') queued.push(u.update.value);
      if (u.update?.$case === 'assignment') gameId = u.update.value.gameId;
    });
    call.on('error', (error: ServiceError) => resolve({ queued, error }));
    call.on('end', () => resolve({ queued, gameId }));
  });
  const firstQueued = new Promise<Queued>((resolve) =>
    call.on('data', (u) => {
      if (u.update?.$case === 'queued' && u.update.value.position > 0) resolve(u.update.value);
    }),
  );
  void coordinator;
  return { call, result, firstQueued };
}

/** The players of the CreateGame orders a server received, in order. */
function createdFor(orders: { order?: { $case: string; value: unknown } }[]): string[] {
  return orders
    .filter((o) => o.order?.$case === 'createGame')
    .flatMap((o) => (o.order!.value as CreateGame).seats.map((s) => s.playerId));
}

describe('placement over gRPC: slots, the queue, faults and restarts', () => {
  let coordinator: TestCoordinator;
  afterEach(async () => {
    await coordinator.stop();
  });

  it('queues clients with increasing positions when capacity runs out, and drains in order when a server joins', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    await coordinator.server({ serverId: 'small', maxGames: 1 });
    const client = coordinator.client();
    const first = await find(client, 'p0');
    expect(first.assignment.serverId).toBe('small');

    const waiting = [];
    for (let i = 1; i <= 4; i++) {
      const w = findQueued(coordinator, client, `p${i}`);
      expect((await w.firstQueued).position).toBe(i);
      waiting.push(w);
    }
    const big = await coordinator.server({ serverId: 'big', maxGames: 10 });
    const results = await Promise.all(waiting.map((w) => w.result));
    for (const r of results) expect(r.gameId).toBeTruthy();
    expect(createdFor(big.orders)).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it('refuses beyond the queue bound with RESOURCE_EXHAUSTED and a retry hint', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    await coordinator.server({ serverId: 'none', maxGames: 0 });
    const client = coordinator.client();
    const waiting = [];
    for (let i = 0; i < 5; i++) {
      const w = findQueued(coordinator, client, `q${i}`);
      await w.firstQueued;
      waiting.push(w);
    }
    const error = (await find(client, 'q5').catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.details).toContain('solo/region=eu');
    expect((error.metadata as Metadata).get('retry-after-ms')).toHaveLength(1);
    for (const w of waiting) w.call.cancel();
  });

  it('takes creations back from a server that ignores them, backs it off, and still seats everyone', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    const deaf = await coordinator.server({ serverId: 'deaf', maxGames: 5 }, { decide: () => 'ignore' });
    const client = coordinator.client();
    const finds = ['a', 'b', 'c'].map((id) => find(client, id));
    await eventually(() => createdFor(deaf.orders).length >= 3);
    const good = await coordinator.server({ serverId: 'good', maxGames: 10 });
    const results: FindResult[] = await Promise.all(finds);
    for (const r of results) expect(r.assignment.serverId).toBe('good');
    expect(createdFor(good.orders).sort()).toEqual(['a', 'b', 'c']);
    const metrics = await coordinator.running.metrics.registry.getSingleMetricAsString('gamefactory_requeues_total');
    expect(metrics).toMatch(/cause="timeout"\} [1-9]/);
  });

  it('loses nobody when a server is killed mid-creation', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML.replace('createTimeoutMs: 1000', 'createTimeoutMs: 60000'));
    const doomed = await coordinator.server({ serverId: 'doomed', maxGames: 5 }, { decide: () => 'ignore' });
    const client = coordinator.client();
    const finds = ['k1', 'k2', 'k3'].map((id) => find(client, id));
    await eventually(() => createdFor(doomed.orders).length === 3);
    const survivor = await coordinator.server({ serverId: 'survivor', maxGames: 10 });
    expect(createdFor(survivor.orders)).toEqual([]);
    doomed.close();
    const results = await Promise.all(finds);
    for (const r of results) expect(r.assignment.serverId).toBe('survivor');
    expect(createdFor(survivor.orders)).toEqual(['k1', 'k2', 'k3']);
  });

  it('gives clients retrying after a coordinator restart their original order back', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    await coordinator.server({ serverId: 'full', maxGames: 0 });
    const client = coordinator.client();
    const ids = ['r1', 'r2', 'r3', 'r4'];
    const before = [];
    for (const id of ids) {
      const w = findQueued(coordinator, client, id);
      await w.firstQueued;
      before.push(w);
    }
    await coordinator.restart();
    for (const w of before) expect((await w.result).error).toBeDefined();

    // The servers come back, still full; clients retry in the reverse order.
    const back = await coordinator.server({ serverId: 'back', maxGames: 0 });
    const retryClient = coordinator.client();
    const retries = [];
    for (const id of [...ids].reverse()) {
      const w = findQueued(coordinator, retryClient, id);
      retries.push({ id, queued: await w.firstQueued, w });
    }
    const positions = Object.fromEntries(retries.map((r) => [r.id, r.queued.position]));
    // r1 was first before the restart and is first again, though it retried last.
    expect(positions.r1).toBe(1);
    back.setCapacity(10);
    await Promise.all(retries.map((r) => r.w.result));
    expect(createdFor(back.orders)).toEqual(ids);
  });

  it('keeps a FindGames stream the client half-closed open until its waiting tickets are placed', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    const server = await coordinator.server({ serverId: 'later', maxGames: 0 });
    const stream = coordinator.client().findGames();
    const updates: FindGameUpdate[] = [];
    stream.on('data', (u: FindGameUpdate) => updates.push(u));
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('end', () => resolve());
      stream.on('error', reject);
    });
    for (const id of ['h1', 'h2', 'h3']) {
      stream.write({ request: { $case: 'find', value: findGameRequest({ ticketId: id, template: 'solo', party: [id], partition: { region: 'eu' } }) } });
    }
    await eventually(() => updates.filter((u) => u.update?.$case === 'queued').length === 3);
    stream.end(); // no more tickets from this gateway, but it still wants the answers
    server.setCapacity(10);
    await ended;
    const assigned = updates.filter((u) => u.update?.$case === 'assignment').map((u) => u.ticketId);
    expect(assigned.sort()).toEqual(['h1', 'h2', 'h3']);
  });

  it('CancelFind ends a waiting ticket: its stream ends CANCELLED and its place is given up', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML);
    await coordinator.server({ serverId: 'none', maxGames: 0 });
    const client = coordinator.client();
    const first = findQueued(coordinator, client, 'c1');
    const second = findQueued(coordinator, client, 'c2');
    expect((await second.firstQueued).position).toBe(2);
    const cancel = (ticketId: string) =>
      new Promise<boolean>((resolve, reject) =>
        client.cancelFind({ ticketId }, (err, res) => (err ? reject(err) : resolve(res!.cancelled))),
      );
    expect(await cancel('c1')).toBe(true);
    expect((await first.result).error?.code).toBe(status.CANCELLED);
    expect(await cancel('c1')).toBe(false);
    expect(coordinator.running.coordinator.view.queuedIn('solo/region=eu')).toBe(1);
    second.call.cancel();
  });

  it('ends a ticket that outlives its time to live with DEADLINE_EXCEEDED', async () => {
    coordinator = await TestCoordinator.start(SOLO_YAML.replace('ticketTtlSeconds: 60', 'ticketTtlSeconds: 1'));
    await coordinator.server({ serverId: 'none', maxGames: 0 });
    const error = (await find(coordinator.client(), 'late').catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
    expect(coordinator.running.coordinator.view.ticket('late')).toBeUndefined();
  });
});
