import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdmissionError, GameServer, type GameServerOptions } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import type { QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator, eventually } from '../integration/harness.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 1000 }
ladders:
  - { name: duel-ranked, system: elo, minGameSeconds: 0 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 4, reservationMs: 10000 }
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 20 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 1000 }]
      ladder: duel-ranked
`;

/** @gamefactory/game-server-sdk against a real coordinator on loopback (in process, LMDB in a temp dir). */
describe('game-server SDK', () => {
  let coordinator: TestCoordinator;
  const opened: { close(): void }[] = [];
  const gameServer = (options: Partial<GameServerOptions> & Pick<GameServerOptions, 'serverId'>) => {
    const server = new GameServer({
      addresses: coordinator.address,
      endpoint: `${options.serverId}.example:7777`,
      attributes: { region: 'eu' },
      capacity: { maxGames: 10 },
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
      createGame: () => {},
      ...options,
    });
    opened.push(server);
    return server;
  };
  const matchmaker = () => {
    const m = new Matchmaker({ addresses: coordinator.address });
    opened.push(m);
    return m;
  };

  /** QueryStats over the cooperative factory, polled until `check` holds. */
  const coopStats = async (check: (s: QueryStatsResponse) => boolean, ms = 5000) => {
    const client = coordinator.client();
    const deadline = Date.now() + ms;
    for (;;) {
      const stats = await new Promise<QueryStatsResponse>((resolve, reject) =>
        client.queryStats({ factory: 'coop/region=eu', template: '', partitionAttributes: {}, predicates: [], mode: 0 }, (e, r) => (e ? reject(e) : resolve(r))),
      ).catch(() => undefined);
      if (stats && check(stats)) return stats;
      if (Date.now() > deadline) throw new Error(`QueryStats: condition not met in time (last: ${JSON.stringify(stats, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
  });
  afterEach(async () => {
    for (const o of opened.splice(0)) o.close();
    await coordinator.stop();
  });

  it('creates the ordered game, and lets each player in with the token of its assignment only', async () => {
    const orders: string[] = [];
    const server = gameServer({
      serverId: 'eu-1',
      tokenGraceMs: 300,
      createGame: (order) => {
        orders.push(order.factory);
        return `match-${orders.length}`;
      },
    });
    const connected = await server.start();
    expect(connected.factories).toEqual(['coop/region=eu', 'duel/region=eu']);

    const assignment = await matchmaker().find({ template: 'coop', party: ['alice', 'bob'], partition: { region: 'eu' }, matchable: { act: 1 } }).assignment;
    expect(assignment).toMatchObject({ gameId: 'match-1', serverEndpoint: 'eu-1.example:7777', created: true });
    expect(orders).toEqual(['coop/region=eu']);

    await server.admit(assignment.gameId, 'alice', assignment.reservationToken);
    expect(assignment.seatTokens['alice']).toBe(assignment.reservationToken);
    const forged = await server.admit(assignment.gameId, 'bob', 'forged').catch((e: AdmissionError) => e);
    expect(forged).toBeInstanceOf(AdmissionError);
    // Alice's token does not open Bob's seat: each seat has its own.
    const borrowed = await server.admit(assignment.gameId, 'bob', assignment.reservationToken).catch((e: AdmissionError) => e);
    expect(borrowed).toBeInstanceOf(AdmissionError);
    await coopStats((s) => s.players === 1n);
    await server.admit(assignment.gameId, 'bob', assignment.seatTokens['bob']!);
    await coopStats((s) => s.players === 2n);
    expect([...server.games.get('match-1')!.players]).toEqual(['alice', 'bob']);
  }, 20_000);

  it('a drop-in party is announced with seatsReserved and its token; leaves and ends are reported', async () => {
    const server = gameServer({ serverId: 'eu-1' });
    const reserved: string[] = [];
    server.on('seatsReserved', ({ gameId, playerIds, seats }) => {
      reserved.push(...playerIds);
      for (const s of seats) void server.admit(gameId, s.playerId, s.token);
    });
    await server.start();
    const mm = matchmaker();
    const first = await mm.find({ template: 'coop', party: ['a'], partition: { region: 'eu' } }).assignment;
    const second = await mm.find({ template: 'coop', party: ['b'], partition: { region: 'eu' } }).assignment;
    expect(second.gameId).toBe(first.gameId);
    expect(second.created).toBe(false);
    // The seats may reach the server a moment after the assignment reached the player.
    await eventually(() => reserved.length === 2);
    expect(reserved).toEqual(['a', 'b']);
    await coopStats((s) => s.players === 2n);
    server.leave(first.gameId, 'a');
    await coopStats((s) => s.players === 1n);
    server.endGame(first.gameId);
    await coopStats((s) => s.games === 0n);
  }, 20_000);

  it('a refused order goes to another server; a result is acknowledged once', async () => {
    gameServer({ serverId: 'broken', createGame: () => Promise.reject(new Error('out of maps')) });
    const good = gameServer({ serverId: 'good' });
    await Promise.all(opened.map((s) => (s as GameServer).start()));
    const mm = matchmaker();
    const [a, b] = await Promise.all([
      mm.find({ template: 'duel', party: [{ playerId: 'p1', score: 1500 }], partition: { region: 'eu' } }).assignment,
      mm.find({ template: 'duel', party: [{ playerId: 'p2', score: 1510 }], partition: { region: 'eu' } }).assignment,
    ]);
    expect(a.serverId).toBe('good');
    expect(b.gameId).toBe(a.gameId);
    const teams = [{ playerIds: ['p1'], rank: 0 }, { playerIds: ['p2'], rank: 1 }];
    expect(await good.reportResult(a.gameId, { teams, durationSeconds: 120 })).toEqual({ applied: true, reason: '' });
    expect((await good.reportResult(a.gameId, { teams, durationSeconds: 120 })).applied).toBe(false);
    // Both packages read the ladder: the winner above the loser, a player never rated undefined.
    const [p1, p2] = await Promise.all([mm.rating('duel-ranked', 'p1'), good.rating('duel-ranked', 'p2')]);
    expect(p1!.games).toBe(1);
    expect(p1!.mean).toBeGreaterThan(p2!.mean);
    expect(await mm.rating('duel-ranked', 'nobody')).toBeUndefined();
    expect(await good.rating('no-such-ladder', 'p1').catch((e: { code: number }) => e.code)).toBe(5);
  }, 20_000);

  it('reconnects after the coordinator restarts and re-announces its games with their players', async () => {
    const server = gameServer({ serverId: 'eu-1' });
    const connections: string[] = [];
    server.on('connected', ({ address }) => connections.push(address));
    server.on('seatsReserved', ({ gameId, seats }) => seats.forEach((s) => void server.admit(gameId, s.playerId, s.token)));
    await server.start();
    const assignment = await matchmaker().find({ template: 'coop', party: ['vet'], partition: { region: 'eu' }, matchable: { act: 3 } }).assignment;
    await coopStats((s) => s.players === 1n);

    await coordinator.restart('drain');
    await eventually(() => connections.length === 2, 10_000);
    await coopStats((s) => s.players === 1n);
    // The re-announced game takes a drop-in as before.
    const again = await matchmaker().find({ template: 'coop', party: ['newcomer'], partition: { region: 'eu' }, matchable: { act: 3 } }).assignment;
    expect(again.gameId).toBe(assignment.gameId);
  }, 30_000);

  it('a game still being created across a coordinator restart: the new coordinator waits for it, no second order', async () => {
    let make: ((id: string) => void) | undefined;
    const orders: string[] = [];
    const server = gameServer({
      serverId: 'eu-1',
      createGame: (order) => {
        orders.push(order.requestId);
        return new Promise<string>((resolve) => (make = resolve));
      },
    });
    const connections: string[] = [];
    server.on('connected', ({ address }) => connections.push(address));
    await server.start();
    const find = matchmaker().find({ template: 'coop', party: ['slow'], partition: { region: 'eu' } });
    await eventually(() => make !== undefined);

    // The coordinator goes away while the server is still making the game; its hello to the next
    // one lists the order as pending, so the restored ticket waits for that game.
    await coordinator.restart('drain');
    await eventually(() => connections.length === 2, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // time enough to order it again, if it would
    make!('slow-game');
    const assignment = await find.assignment;
    expect(assignment.gameId).toBe('slow-game');
    expect(orders).toHaveLength(1);
  }, 30_000);

  it('drains: no new games, running ones finish, then it hangs up', async () => {
    const server = gameServer({ serverId: 'eu-1' });
    server.on('seatsReserved', ({ gameId, seats }) => seats.forEach((s) => void server.admit(gameId, s.playerId, s.token)));
    await server.start();
    const { gameId } = await matchmaker().find({ template: 'coop', party: ['x'], partition: { region: 'eu' } }).assignment;
    const closed = new Promise<void>((resolve) => server.once('closed', () => resolve()));
    const drained = server.drain({ timeoutMs: 10_000 });
    // No slot and no open game any more: a new party is refused as nobody can serve it.
    await coopStats((s) => s.openGames === 0n);
    server.endGame(gameId);
    expect(await drained).toEqual({ unfinished: [] });
    await closed;
    expect(server.connected).toBe(false);
  }, 20_000);
});
