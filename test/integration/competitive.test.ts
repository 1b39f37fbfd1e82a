import type { QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findGame, findGameRequest, type FindOptions, type FindResult } from '../support/find-game.js';
import type { GameOrder } from '@gamefactory/game-server-sdk';
import type { FindGameUpdate, FindGamesRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { TestCoordinator, eventually } from './harness.js';

/**
 * Issue 5's "done when", over gRPC: hundreds of scored clients find 1v1 and 2v2 games through a
 * real coordinator on loopback, and every game the fake servers are ordered to create is full,
 * keeps parties together, seats nobody twice and respects the expansion window in force.
 */
const MAPS = ['harbor', 'canyon', 'ruins'];
const REGIONS = ['eu', 'us'];

const COMPETITIVE_YAML = `
placement: { policy: spread, createTimeoutMs: 10000, ticketTtlSeconds: 120 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 50 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100 }
        - { afterSeconds: 1, maxScoreGap: 300 }
        - { afterSeconds: 2 }
      hillClimbBudgetMs: 5
      maps: [${MAPS.join(', ')}]
      regions: [${REGIONS.join(', ')}]
  - name: squad
    competitive:
      teams: 2
      teamSize: 2
      batch: { maxTickets: 1000, intervalMs: 100 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100 }
        - { afterSeconds: 1, maxScoreGap: 300 }
        - { afterSeconds: 2 }
      hillClimbBudgetMs: 5
      maps: [${MAPS.join(', ')}]
      regions: [${REGIONS.join(', ')}]
`;

/** The expansion steps above, in ms: the window of a ticket that has waited `waitMs`. */
const STEPS = [
  { afterMs: 0, maxScoreGap: 100 },
  { afterMs: 1000, maxScoreGap: 300 },
  { afterMs: 2000, maxScoreGap: Infinity },
];
const windowFor = (waitMs: number) => STEPS.filter((s) => s.afterMs <= waitMs).at(-1)!.maxScoreGap;

interface SentTicket {
  readonly options: Omit<FindOptions, 'party'> & { party: { playerId: string; score: number }[] };
  /** Date.now() just before the call: earlier than the coordinator's enqueue time. */
  sentAt: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A deterministic permutation (LCG), so waves mix clusters and outliers the same way every run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function ticket(id: string, template: string, scores: number[], i: number): SentTicket {
  return {
    options: {
      ticketId: id,
      template,
      party: scores.map((score, k) => ({ playerId: scores.length === 1 ? `${id}-p` : `${id}-p${k}`, score })),
      latenciesMs: { eu: 20 + (i % 7) * 10, us: 40 + (i % 5) * 15 },
      // A few vetoes, never more than one map per party, so some map always remains.
      vetoedMaps: i % 9 === 0 ? [MAPS[i % MAPS.length]!] : [],
      preferredMaps: i % 4 === 1 ? [MAPS[(i + 1) % MAPS.length]!] : [],
    },
    sentAt: 0,
  };
}

/**
 * 1v1: a dense cluster that pairs at once (step 0), pairs of outliers 150-280 apart that only
 * step 1 can pair, and pairs 400-580 apart that only the unlimited step 2 can pair.
 */
function duelTickets(): SentTicket[] {
  const tickets: SentTicket[] = [];
  let i = 0;
  for (let k = 0; k < 160; k++, i++) tickets.push(ticket(`d${i}`, 'duel', [1000 + k * 2], i));
  for (let k = 0; k < 10; k++) {
    const base = 3000 + k * 1000;
    for (const score of [base, base + 150 + k * 13]) tickets.push(ticket(`d${i}`, 'duel', [score], i++));
  }
  for (let k = 0; k < 10; k++) {
    const base = 20_000 + k * 2000;
    for (const score of [base, base + 400 + k * 20]) tickets.push(ticket(`d${i}`, 'duel', [score], i++));
  }
  return tickets;
}

/**
 * 2v2 with solos and duos (an even number of solos, so every team can be filled): a cluster,
 * groups of four players that need step 1, and groups that need step 2.
 */
function squadTickets(): SentTicket[] {
  const tickets: SentTicket[] = [];
  let i = 0;
  const duo = (m: number) => [m - 15 + (i % 4) * 5, m + 15 - (i % 3) * 5];
  for (let k = 0; k < 120; k++, i++) {
    const m = 1500 + k * 2;
    tickets.push(ticket(`s${i}`, 'squad', k % 3 === 0 ? duo(m) : [m], i));
  }
  // 120 cluster tickets: 40 duos and 80 solos. Outlier groups: duo vs duo, 200 apart (step 1)...
  for (let k = 0; k < 6; k++) {
    const base = 5000 + k * 1000;
    tickets.push(ticket(`s${i}`, 'squad', duo(base), i++));
    tickets.push(ticket(`s${i}`, 'squad', duo(base + 200), i++));
  }
  // ...and a duo against two solos 450 above it (step 2).
  for (let k = 0; k < 6; k++) {
    const base = 30_000 + k * 3000;
    tickets.push(ticket(`s${i}`, 'squad', duo(base), i++));
    tickets.push(ticket(`s${i}`, 'squad', [base + 450], i++));
    tickets.push(ticket(`s${i}`, 'squad', [base + 470], i++));
  }
  return tickets;
}

describe('competitive matchmaking over gRPC on loopback', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(COMPETITIVE_YAML);
  });
  afterEach(async () => {
    await coordinator.stop();
  });

  it(
    'matches hundreds of scored 1v1 and 2v2 tickets into full games within the expansion window in force',
    async () => {
      const arrivals = new Map<string, number>();
      const decide = (order: GameOrder) => {
        arrivals.set(order.requestId, Date.now());
        return 'create' as const;
      };
      const servers = [
        await coordinator.server({ serverId: 'arena-1', maxGames: 500 }, { autoJoin: true, decide }),
        await coordinator.server({ serverId: 'arena-2', maxGames: 500 }, { autoJoin: true, decide }),
      ];
      const client = coordinator.client();
      const templates = { duel: { teams: 2, teamSize: 1 }, squad: { teams: 2, teamSize: 2 } } as const;

      // Three waves 700 ms apart, so tickets that end up together have waited different times.
      const all = [...shuffled(duelTickets(), 7), ...shuffled(squadTickets(), 11)];
      const waves = [0, 1, 2].map((w) => all.filter((_, i) => i % 3 === w));
      const calls: Promise<FindResult>[] = [];
      for (const [w, wave] of waves.entries()) {
        if (w > 0) await new Promise((r) => setTimeout(r, 700));
        for (const t of wave) {
          t.sentAt = Date.now();
          calls.push(findGame(client, t.options));
        }
      }
      const sentInOrder = waves.flat();
      // Every call ends in an assignment (a rejection fails the test here).
      const results = await Promise.all(calls);
      expect(results).toHaveLength(all.length);

      const ticketOfPlayer = new Map<string, SentTicket>();
      for (const t of all) for (const p of t.options.party) ticketOfPlayer.set(p.playerId, t);
      const assignmentOf = new Map(sentInOrder.map((t, i) => [t.options.ticketId, results[i]!.assignment]));

      const orders = servers.flatMap((server) =>
        server.orders.flatMap((m) => (m.order?.$case === 'createGame' ? [{ server, order: m.order.value }] : [])),
      );
      const seated = new Set<string>();
      let gamesNeedingStep1 = 0;
      let gamesNeedingStep2 = 0;
      for (const { server, order } of orders) {
        const template = order.factory as keyof typeof templates;
        const shape = templates[template];
        expect(shape, order.factory).toBeDefined();
        // Full: exactly teams x teamSize seats, teamSize on each team.
        expect(order.seats).toHaveLength(shape.teams * shape.teamSize);
        expect(order.seatTeams).toHaveLength(order.seats.length);
        for (let team = 0; team < shape.teams; team++) {
          expect(order.seatTeams.filter((t) => t === team), `${order.requestId} team ${team}`).toHaveLength(shape.teamSize);
        }
        expect(MAPS).toContain(order.map);
        expect(REGIONS).toContain(order.region);

        const tickets = new Map<string, SentTicket>();
        order.seats.forEach((seat, s) => {
          // Nobody is in two games.
          expect(seated.has(seat.playerId), seat.playerId).toBe(false);
          seated.add(seat.playerId);
          const t = ticketOfPlayer.get(seat.playerId)!;
          expect(t.options.template).toBe(template);
          tickets.set(t.options.ticketId, t);
          const assignment = assignmentOf.get(t.options.ticketId)!;
          // The seat's team is the team in the party's assignment, so a party shares one team.
          expect(assignment.team, seat.playerId).toBe(order.seatTeams[s]);
          expect(assignment.serverId).toBe(server.identity.serverId);
          expect(assignment.map).toBe(order.map);
          expect(assignment.region).toBe(order.region);
          // Each player its own seat's token, the one the order gives the server for that seat.
          expect(assignment.seatTokens[seat.playerId]).toBe(seat.reservationToken);
          expect(seat.reservationToken).not.toBe('');
          expect(assignment.created).toBe(true);
        });
        // The whole party is in this game, and its game on the server is this one.
        const gameIds = new Set([...tickets.keys()].map((id) => assignmentOf.get(id)!.gameId));
        expect(gameIds.size).toBe(1);
        const hosted = server.games.get([...gameIds][0]!)!;
        expect([...hosted.players].sort()).toEqual(order.seats.map((s) => s.playerId).sort());
        for (const t of tickets.values()) {
          for (const p of t.options.party) expect(hosted.players.has(p.playerId), p.playerId).toBe(true);
          expect(t.options.vetoedMaps).not.toContain(order.map);
        }

        // The window in force when the game formed. A ticket's wait is measured from just before
        // its call to the arrival of this order, which brackets the coordinator's own
        // (enqueue -> batch) interval on the same clock, so it is never shorter than the real
        // wait and the window derived from it is never narrower than the real one. Windows are
        // reciprocal: every two tickets (by party mean score) must be inside both their windows,
        // i.e. inside the window of the one that waited less. This implies the looser check
        // "gap <= window of the longest wait in the game".
        const arrived = arrivals.get(order.requestId)!;
        const members = [...tickets.values()].map((t) => ({
          id: t.options.ticketId,
          score: mean(t.options.party.map((p) => p.score)),
          waitMs: arrived - t.sentAt,
        }));
        for (const a of members) {
          for (const b of members) {
            if (a.score >= b.score) continue;
            const gap = b.score - a.score;
            const window = Math.min(windowFor(a.waitMs), windowFor(b.waitMs));
            expect(gap, `${a.id}@${a.waitMs}ms vs ${b.id}@${b.waitMs}ms in ${order.requestId}`).toBeLessThanOrEqual(window);
          }
        }
        const scores = members.map((m) => m.score);
        const gap = Math.max(...scores) - Math.min(...scores);
        if (gap > 300) gamesNeedingStep2 += 1;
        else if (gap > 100) gamesNeedingStep1 += 1;
      }
      // Every player was seated exactly once, by one order each.
      expect(seated.size).toBe(ticketOfPlayer.size);
      expect(orders).toHaveLength(new Set(orders.map((o) => o.order.requestId)).size);
      // The outliers did need the wider steps, however the batches fell: the 40 duel outliers are
      // each over 100 from every other ticket (so at least 20 games beyond step 0), and the 20
      // far ones over 300 (at least 10 games that only the unlimited step allows).
      expect(gamesNeedingStep1 + gamesNeedingStep2).toBeGreaterThanOrEqual(20);
      expect(gamesNeedingStep2).toBeGreaterThanOrEqual(10);
      // Both servers took games (spread placement).
      for (const server of servers) expect(server.games.size).toBeGreaterThan(0);

      // The quality of the games formed is exposed in stats and metrics.
      const stats = await new Promise<QueryStatsResponse>((resolve, reject) =>
        client.queryStats(
          { factory: '', template: 'duel', partitionAttributes: {}, predicates: [], mode: 0 },
          (err, res) => (err ? reject(err) : resolve(res!)),
        ),
      );
      expect(Number(stats.competitive?.gamesFormed)).toBeGreaterThanOrEqual(100);
      expect(stats.competitive!.meanGapSigma).toBeGreaterThan(0);
      expect(stats.competitive!.p99GapSigma).toBeGreaterThanOrEqual(stats.competitive!.meanGapSigma);
      const metrics = await coordinator.running.metrics.registry.metrics();
      expect(metrics).toMatch(/gamefactory_competitive_gap_sigma_count\{factory="duel"\} [1-9]/);
      expect(metrics).toMatch(/gamefactory_competitive_wait_seconds_count\{factory="squad/);
    },
    60_000,
  );

  it('rejects bad competitive requests with INVALID_ARGUMENT naming the field', async () => {
    await coordinator.server({ serverId: 'arena' });
    const client = coordinator.client();
    const refused = async (options: FindOptions) => {
      const error = await findGame(client, options).then(
        () => undefined,
        (e: ServiceError) => e,
      );
      expect(error, options.ticketId).toBeDefined();
      expect(error!.code, `${options.ticketId}: ${error!.details}`).toBe(status.INVALID_ARGUMENT);
      return error!.details;
    };
    const solo = (id: string, extra: Partial<FindOptions> = {}): FindOptions => ({
      ticketId: id,
      template: 'duel',
      party: [{ playerId: `${id}-p`, score: 1000 }],
      ...extra,
    });

    expect(
      await refused({
        ticketId: 'too-big',
        template: 'squad',
        party: [
          { playerId: 'a', score: 1 },
          { playerId: 'b', score: 2 },
          { playerId: 'c', score: 3 },
        ],
      }),
    ).toMatch(/^party: /);
    expect(await refused(solo('duo-in-duel', { party: [{ playerId: 'x', score: 1 }, { playerId: 'y', score: 2 }] }))).toMatch(/^party: /);
    expect(await refused(solo('nan', { party: [{ playerId: 'nan-p', score: NaN }] }))).toMatch(/^party\[0\]\.score: /);
    expect(
      await refused({ ticketId: 'missing', template: 'squad', party: [{ playerId: 'm0', score: 5 }, { playerId: 'm1' }] }),
    ).toMatch(/^party\[1\]\.score: /);
    expect(await refused(solo('mars', { latenciesMs: { eu: 20, mars: 400 } }))).toMatch(/^latencies_ms\[mars\]: /);
    expect(await refused(solo('atlantis', { preferredMaps: ['atlantis'] }))).toMatch(/^preferred_maps\[0\]: /);
    expect(await refused(solo('veto', { vetoedMaps: ['ruins', 'moon'] }))).toMatch(/^vetoed_maps\[1\]: /);

    // None of them became a ticket or held its players: the same players can find a game now.
    expect(coordinator.running.coordinator.view.snapshot().tickets).toBe(0);
    const [a, b] = await Promise.all([
      findGame(client, solo('ok-1', { party: [{ playerId: 'nan-p', score: 1000 }] })),
      findGame(client, solo('ok-2', { party: [{ playerId: 'mars-p', score: 1010 }] })),
    ]);
    expect(a.assignment.gameId).toBe(b.assignment.gameId);
  });

  it('carries many tickets over one FindGames stream, with per-ticket errors as updates', async () => {
    const server = await coordinator.server({ serverId: 'arena' });
    const client = coordinator.client();
    const call = client.findGames();
    const updates = new Map<string, FindGameUpdate[]>();
    let ended: string | undefined;
    call.on('data', (u: FindGameUpdate) => {
      const list = updates.get(u.ticketId) ?? [];
      list.push(u);
      updates.set(u.ticketId, list);
    });
    call.on('error', (e: ServiceError) => (ended = `error ${e.code}`));
    call.on('end', () => (ended ??= 'end'));
    const find = (options: FindOptions): FindGamesRequest => ({ request: { $case: 'find', value: findGameRequest(options) } });
    const last = (id: string) => updates.get(id)?.at(-1)?.update;

    const good = Array.from({ length: 60 }, (_, i) =>
      i % 2 === 0
        ? { ticketId: `g${i}`, template: 'duel', party: [{ playerId: `g${i}-p`, score: 1000 + i }] }
        : { ticketId: `g${i}`, template: 'squad', party: [{ playerId: `g${i}-a`, score: 2000 + i }, { playerId: `g${i}-b`, score: 2010 + i }] },
    );
    // Bad tickets in the middle of the stream.
    const bad = [
      { ticketId: 'bad-nan', template: 'duel', party: [{ playerId: 'bad-nan-p', score: NaN }] },
      { ticketId: 'bad-map', template: 'squad', party: [{ playerId: 'bad-map-p', score: 5 }], preferredMaps: ['atlantis'] },
      { ticketId: 'bad-dup', template: 'duel', party: [{ playerId: 'g0-p', score: 1000 }] },
    ];
    good.slice(0, 30).forEach((o) => call.write(find(o)));
    bad.forEach((o) => call.write(find(o)));
    good.slice(30).forEach((o) => call.write(find(o)));

    await eventually(() => [...good, ...bad].every((o) => {
      const u = last(o.ticketId);
      return u?.$case === 'assignment' || u?.$case === 'error';
    }), 15_000);

    for (const o of good) {
      const list = updates.get(o.ticketId)!;
      expect(list.every((u) => u.ticketId === o.ticketId)).toBe(true);
      expect(list.some((u) => u.update?.$case === 'queued'), o.ticketId).toBe(true);
      const final = list.at(-1)!.update;
      expect(final?.$case, o.ticketId).toBe('assignment');
      if (final?.$case === 'assignment') expect(final.value.factory).toBe(o.template);
    }
    const errorOf = (id: string) => {
      const list = updates.get(id)!;
      expect(list, id).toHaveLength(1);
      const u = list[0]!.update;
      if (u?.$case !== 'error') throw new Error(`${id}: expected an error update, got ${u?.$case}`);
      return u.value;
    };
    expect(errorOf('bad-nan')).toMatchObject({ code: status.INVALID_ARGUMENT, message: expect.stringMatching(/^party\[0\]\.score: /) });
    expect(errorOf('bad-map')).toMatchObject({ code: status.INVALID_ARGUMENT, message: expect.stringMatching(/^preferred_maps\[0\]: /) });
    // g0-p was already assigned... or still finding: either way a player cannot be in two tickets or games.
    expect([status.ALREADY_EXISTS, status.FAILED_PRECONDITION]).toContain(errorOf('bad-dup').code);
    // Nothing else came on the stream: every update names one of the tickets sent.
    const sent = new Set([...good, ...bad].map((o) => o.ticketId));
    expect([...updates.keys()].every((id) => sent.has(id))).toBe(true);

    // The stream survived the errors: two more tickets on it still get their game.
    expect(ended).toBeUndefined();
    call.write(find({ ticketId: 'late-1', template: 'duel', party: [{ playerId: 'late-1-p', score: 700 }] }));
    call.write(find({ ticketId: 'late-2', template: 'duel', party: [{ playerId: 'late-2-p', score: 720 }] }));
    await eventually(() => last('late-1')?.$case === 'assignment' && last('late-2')?.$case === 'assignment', 10_000);
    const late = [last('late-1'), last('late-2')].map((u) => (u?.$case === 'assignment' ? u.value : undefined));
    expect(late[0]!.gameId).toBe(late[1]!.gameId);
    expect(new Set(late.map((a) => a!.team))).toEqual(new Set([0, 1]));

    // Every good ticket sits in exactly one game the server was ordered to create.
    const seats = server.orders.flatMap((m) => (m.order?.$case === 'createGame' ? m.order.value.seats.map((s) => s.playerId) : []));
    expect(new Set(seats).size).toBe(seats.length);
    expect(seats).toHaveLength(30 + 30 * 2 + 2);

    call.end();
    await eventually(() => ended !== undefined, 5000);
    expect(ended).toBe('end');
  });
});
