import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FindError, Matchmaker, status, type Proposed, type Ticket } from '@gamefactory/matchmaking-client';
import { TestCoordinator, eventually } from './harness.js';

/**
 * The ready check end to end: a real coordinator on loopback (gRPC, LMDB), a game server on the
 * SDK, players on @gamefactory/matchmaking-client answering `proposed` updates with respondToMatch.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, ticketTtlSeconds: 120 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 50 }
      pairWindow: longer-waiter
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100 }
        - { afterSeconds: 1, maxScoreGap: 1000 }
      acceptance: { timeoutMs: 1000 }
`;

/** The next `proposed` update of a ticket. */
const proposed = (ticket: Ticket): Promise<Proposed> => new Promise((resolve) => ticket.once('proposed', resolve));
const failure = (ticket: Ticket): Promise<FindError> => ticket.assignment.then(() => { throw new Error(`ticket ${ticket.id} was assigned`); }, (e: FindError) => e);

describe('ready check over gRPC', () => {
  let coordinator: TestCoordinator;
  let mm: Matchmaker;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
    mm = new Matchmaker({ addresses: coordinator.address });
  });
  afterEach(async () => {
    mm.close();
    await coordinator.stop();
  });

  const creates = (server: { orders: { order?: { $case: string } }[] }) => server.orders.filter((o) => o.order?.$case === 'createGame').length;

  it('all accept: the game is created once both have', async () => {
    const server = await coordinator.server({ serverId: 'arena', maxGames: 10 });
    const a = mm.find({ template: 'duel', party: [{ playerId: 'a', score: 1500 }] });
    const b = mm.find({ template: 'duel', party: [{ playerId: 'b', score: 1510 }] });
    const [pa, pb] = await Promise.all([proposed(a), proposed(b)]);
    expect(pa.matchId).toBe(pb.matchId);
    expect(pa).toMatchObject({ factory: 'duel', players: 2, acceptedPlayers: 0 });
    expect(creates(server)).toBe(0);
    expect(await mm.respondToMatch(a.id, pa.matchId, true)).toBe(false);
    expect(creates(server)).toBe(0);
    expect(await mm.respondToMatch(b.id, pb.matchId, true)).toBe(true);
    const [ga, gb] = await Promise.all([a.assignment, b.assignment]);
    expect(ga.gameId).toBe(gb.gameId);
    expect(creates(server)).toBe(1);
  });

  it('one declines: it ends, the other waits again with its place and clock and is matched next', async () => {
    await coordinator.server({ serverId: 'arena', maxGames: 10 });
    const a = mm.find({ template: 'duel', party: [{ playerId: 'a', score: 1500 }] });
    const b = mm.find({ template: 'duel', party: [{ playerId: 'b', score: 1510 }] });
    const [pa] = await Promise.all([proposed(a), proposed(b)]);
    const view = coordinator.running.coordinator.view;
    const before = view.ticket(a.id)!;
    await mm.respondToMatch(a.id, pa.matchId, true);
    const requeued = new Promise((resolve) => a.once('queued', resolve));
    await mm.respondToMatch(b.id, pa.matchId, false);
    const declined = await failure(b);
    expect(declined.code).toBe(status.CANCELLED);
    expect(declined.details).toBe(`ticket "${b.id}" declined match "${pa.matchId}"`);
    await requeued;
    expect(view.ticket(a.id)).toMatchObject({ state: 'pooled', createdAt: before.createdAt, arrival: before.arrival });
    // A late answer to the broken match names the problem.
    const late = await mm.respondToMatch(a.id, pa.matchId, true).catch((e: FindError) => e);
    expect((late as FindError).code).toBe(status.FAILED_PRECONDITION);

    const next = proposed(a);
    const c = mm.find({ template: 'duel', party: [{ playerId: 'c', score: 1520 }] });
    const [again, pc] = await Promise.all([next, proposed(c)]);
    expect(again.matchId).toBe(pc.matchId);
    expect(again.matchId).not.toBe(pa.matchId);
    await mm.respondToMatch(a.id, again.matchId, true);
    await mm.respondToMatch(c.id, again.matchId, true);
    expect((await a.assignment).gameId).toBe((await c.assignment).gameId);
  });

  it('one times out: it ends DEADLINE_EXCEEDED, the accepter waits again', async () => {
    const server = await coordinator.server({ serverId: 'arena', maxGames: 10 });
    const a = mm.find({ template: 'duel', party: [{ playerId: 'a', score: 1500 }] });
    const b = mm.find({ template: 'duel', party: [{ playerId: 'b', score: 1510 }] });
    const [pa] = await Promise.all([proposed(a), proposed(b)]);
    const requeued = new Promise((resolve) => a.once('queued', resolve));
    await mm.respondToMatch(a.id, pa.matchId, true);
    const timedOut = await failure(b);
    expect(timedOut.code).toBe(status.DEADLINE_EXCEEDED);
    expect(timedOut.details).toBe(`ticket "${b.id}" did not accept match "${pa.matchId}" in time (acceptance timed out)`);
    await requeued;
    await eventually(() => coordinator.running.coordinator.view.ticket(a.id)?.state === 'pooled');
    expect(creates(server)).toBe(0);
    const metrics = await (await fetch(`http://127.0.0.1:${coordinator.running.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/gamefactory_ready_checks_total\{factory="duel",outcome="timed-out"\} 1/);
    expect(metrics).toMatch(/gamefactory_find_game_total\{factory="duel",outcome="acceptance-timed-out"\} 1/);
  });
});
