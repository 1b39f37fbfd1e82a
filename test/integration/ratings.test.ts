import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import type { GameServerConnection } from '../support/game-server-connection.js';
import { parseConfig } from '../../src/config/load.js';
import type { GameResult } from '../../src/generated/gamefactory/v1/game_server_link.js';
import {
  RatingsClient,
  type GetRatingRequest,
  type GetRatingResponse,
  type LeaderboardRequest,
  type LeaderboardResponse,
  type PlayerRankRequest,
  type PlayerRankResponse,
  type Rating,
} from '../../src/generated/gamefactory/v1/ratings.js';
import { ratingSystem, standing } from '../../src/ratings/index.js';
import type { PlayerRating } from '../../src/ratings/rating-system.js';
import { rateResult, type ReportedResult } from '../../src/ratings/result-rules.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { TestCoordinator, eventually } from './harness.js';

/**
 * Issue 12's "done when", over gRPC on loopback: fake servers report results (a duplicate, a short
 * game, an early leaver, a report from the wrong server) and the Ratings service answers what the
 * pure rules, applied here by hand, predict, also after a restart on the same data directory; and
 * a rated factory matches players whose tickets carry no score.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 1000 }
ladders:
  - name: duel-ranked
    system: glicko2
    minGameSeconds: 1
    earlyLeaverCountsAsLoss: true
  - name: squad-ranked
    system: trueskill
    minGameSeconds: 1
    earlyLeaverCountsAsLoss: true
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 50 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
      ladder: duel-ranked
  - name: squad
    competitive:
      teams: 2
      teamSize: 2
      batch: { maxTickets: 1000, intervalMs: 50 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
      ladder: squad-ranked
`;
const config = parseConfig(YAML);
const DAY_MS = 86_400_000;

/** The ladders as the test predicts them: the pure rules applied to every result that counts. */
class Model {
  readonly ratings = new Map<string, Map<string, PlayerRating>>();

  apply(ladderName: string, result: ReportedResult): void {
    const ladder = config.ladders!.get(ladderName)!;
    const table = this.ratings.get(ladderName) ?? new Map<string, PlayerRating>();
    this.ratings.set(ladderName, table);
    const rated = rateResult(ratingSystem(ladder), ladder, result, table, Math.floor(Date.now() / DAY_MS));
    if (rated.counted) for (const [p, r] of rated.ratings) table.set(p, r);
  }

  standingOf(ladder: string, r: PlayerRating): number {
    return standing(config.ladders!.get(ladder)!.system.kind, r);
  }

  /** Best first; ties by player id, as the board orders them. */
  board(ladder: string): string[] {
    const table = this.ratings.get(ladder)!;
    const s = (p: string) => this.standingOf(ladder, table.get(p)!);
    return [...table.keys()].sort((a, b) => s(b) - s(a) || (a < b ? -1 : a > b ? 1 : 0));
  }

  wire(ladder: string, player: string): Rating {
    const r = this.ratings.get(ladder)!.get(player)!;
    return {
      playerId: player,
      mean: r.mean,
      deviation: r.deviation,
      volatility: r.volatility,
      games: r.games,
      rankPoints: r.rankPoints,
      standing: this.standingOf(ladder, r),
    };
  }
}

const call = <Req, Res>(fn: (req: Req, cb: (e: ServiceError | null, r: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => fn(req, (e, r) => (e ? reject(e) : resolve(r))));
const rpc = (ratings: RatingsClient) => ({
  getRating: (req: GetRatingRequest) => call<GetRatingRequest, GetRatingResponse>((r, cb) => ratings.getRating(r, cb), req),
  playerRank: (req: PlayerRankRequest) => call<PlayerRankRequest, PlayerRankResponse>((r, cb) => ratings.playerRank(r, cb), req),
  leaderboard: (req: LeaderboardRequest) => call<LeaderboardRequest, LeaderboardResponse>((r, cb) => ratings.leaderboard(r, cb), req),
});
const refusal = async (p: Promise<unknown>): Promise<ServiceError> => {
  try {
    await p;
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error('answered');
};

/** Results are timed by the coordinator's clock: a game must really last the ladder's minimum (1 s here). */
const played = () => new Promise((resolve) => setTimeout(resolve, 1100));

const toWire = (r: ReportedResult): GameResult => ({
  gameId: r.gameId,
  teams: r.teams.map((t) => ({ playerIds: [...t.players], rank: t.rank })),
  durationSeconds: r.durationSeconds,
  leftEarly: [...r.leftEarly],
});

let coordinator: TestCoordinator | undefined;
afterEach(async () => {
  await coordinator?.stop();
  coordinator = undefined;
});

describe('ratings end to end (gRPC on loopback)', () => {
  it('applies reported results as the rules predict, refuses the wrong ones, and keeps them through a restart', async () => {
    const c = (coordinator = await TestCoordinator.start(YAML));
    const servers = new Map<string, GameServerConnection>([
      ['s1', await c.server({ serverId: 's1' })],
      ['s2', await c.server({ serverId: 's2' })],
    ]);
    const client = c.client();
    const model = new Model();

    /** Solo tickets with no score, played to one game; returns its id, its host and the other server. */
    let games = 0;
    const play = async (template: string, players: string[]) => {
      const n = ++games;
      const found = await Promise.all(players.map((p) => findGame(client, { ticketId: `${p}-${n}`, template, party: [p] })));
      const { gameId, serverId } = found[0]!.assignment;
      for (const f of found) expect(f.assignment.gameId).toBe(gameId);
      const host = servers.get(serverId)!;
      const other = [...servers.values()].find((s) => s !== host)!;
      return { gameId, host, other, seatTeams: found.map((f) => f.assignment.team) };
    };
    const acks = (s: GameServerConnection, gameId: string) => s.resultAcks.filter((a) => a.gameId === gameId);

    // A 1v1 that ended: first the wrong server claims it, then its host reports twice.
    const g1 = await play('duel', ['p1', 'p2']);
    await played();
    const r1: ReportedResult = { gameId: g1.gameId, serverId: '', teams: [{ players: ['p1'], rank: 0 }, { players: ['p2'], rank: 1 }], durationSeconds: 300, leftEarly: [] };
    g1.host.endGame(g1.gameId);
    g1.other.reportResult(toWire(r1));
    await eventually(() => g1.other.rejections.length === 1);
    expect(g1.other.rejections[0]).toMatch(new RegExp(`^gameResult: FAILED_PRECONDITION: game_result.game_id: server "${g1.other.identity.serverId}" does not host game "${g1.gameId}"`));
    g1.host.reportResult(toWire(r1));
    g1.host.reportResult(toWire({ ...r1, teams: [{ players: ['p1'], rank: 1 }, { players: ['p2'], rank: 0 }] }));
    await eventually(() => acks(g1.host, g1.gameId).length === 2);
    expect(acks(g1.host, g1.gameId)).toEqual([
      { gameId: g1.gameId, applied: true, reason: '' },
      { gameId: g1.gameId, applied: false, reason: 'already applied' },
    ]);
    model.apply('duel-ranked', r1);

    // A short game does not count; a player not seated in it and a malformed result are refused.
    const g2 = await play('duel', ['p3', 'p4']);
    g2.host.endGame(g2.gameId);
    const rejected = g2.host.rejections.length;
    g2.host.reportResult(toWire({ gameId: g2.gameId, serverId: '', teams: [{ players: ['p3'], rank: 0 }, { players: ['p9'], rank: 1 }], durationSeconds: 300, leftEarly: [] }));
    g2.host.reportResult(toWire({ gameId: g2.gameId, serverId: '', teams: [{ players: ['p3'], rank: 0 }], durationSeconds: 300, leftEarly: [] }));
    await eventually(() => g2.host.rejections.length === rejected + 2);
    expect(g2.host.rejections.slice(rejected)).toEqual([
      expect.stringMatching(/^gameResult: FAILED_PRECONDITION: game_result.teams\[1\].player_ids\[0\]: player "p9" was not seated/),
      expect.stringMatching(/^gameResult: INVALID_ARGUMENT: game_result.teams: at least 2 teams/),
    ]);
    g2.host.reportResult(toWire({ gameId: g2.gameId, serverId: '', teams: [{ players: ['p3'], rank: 0 }, { players: ['p4'], rank: 1 }], durationSeconds: 10, leftEarly: [] }));
    await eventually(() => acks(g2.host, g2.gameId).length === 1);
    expect(acks(g2.host, g2.gameId)[0]).toEqual({ gameId: g2.gameId, applied: false, reason: expect.stringMatching(/^game lasted 0s, under the ladder's 1s minimum/) });

    // p3 (unrated after the short game) beats p1.
    const g3 = await play('duel', ['p1', 'p3']);
    await played();
    const r3: ReportedResult = { gameId: g3.gameId, serverId: '', teams: [{ players: ['p3'], rank: 0 }, { players: ['p1'], rank: 1 }], durationSeconds: 200, leftEarly: [] };
    g3.host.reportResult(toWire(r3));
    await eventually(() => acks(g3.host, g3.gameId).length === 1);
    expect(acks(g3.host, g3.gameId)[0]!.applied).toBe(true);
    model.apply('duel-ranked', r3);

    // A 2v2 whose winning team had a player leave before the end: the leaver is rated as a loss.
    const squad = ['q1', 'q2', 'q3', 'q4'];
    const g4 = await play('squad', squad);
    await played();
    const teams = [0, 1].map((team) => squad.filter((_, i) => g4.seatTeams[i] === team));
    const leaver = teams[0]![0]!;
    g4.host.leave(g4.gameId, leaver);
    g4.host.endGame(g4.gameId);
    const r4: ReportedResult = { gameId: g4.gameId, serverId: '', teams: [{ players: teams[0]!, rank: 0 }, { players: teams[1]!, rank: 1 }], durationSeconds: 900, leftEarly: [leaver] };
    g4.host.reportResult(toWire(r4));
    await eventually(() => acks(g4.host, g4.gameId).length === 1);
    expect(acks(g4.host, g4.gameId)[0]!.applied).toBe(true);
    model.apply('squad-ranked', r4);
    const squadRatings = model.ratings.get('squad-ranked')!;
    expect(squadRatings.get(leaver)!.mean).toBeLessThan(ratingSystem(config.ladders!.get('squad-ranked')!).initial().mean);

    const check = async () => {
      const ratings = new RatingsClient(c.address, credentials.createInsecure());
      const r = rpc(ratings);
      try {
        for (const ladder of ['duel-ranked', 'squad-ranked']) {
          const board = model.board(ladder);
          for (const [i, player] of board.entries()) {
            const got = await r.getRating({ ladder, playerId: player });
            expect(got.rating).toEqual(model.wire(ladder, player));
            const rank = await r.playerRank({ ladder, playerId: player });
            expect({ rank: rank.rank, total: rank.total }).toEqual({ rank: BigInt(i + 1), total: BigInt(board.length) });
          }
          const page = await r.leaderboard({ ladder, offset: 0, limit: 10 });
          expect(page.entries.map((e) => [e.rank, e.rating!.playerId])).toEqual(board.map((p, i) => [BigInt(i + 1), p]));
        }
        // p4 only played the short game: never rated.
        expect((await refusal(r.getRating({ ladder: 'duel-ranked', playerId: 'p4' }))).code).toBe(status.NOT_FOUND);
      } finally {
        ratings.close();
      }
    };
    // p3 beat p1, who beat p2: the board puts p2 last.
    expect(model.board('duel-ranked').at(-1)).toBe('p2');
    await check();

    await c.restart();
    await check();
    // The host comes back: a repeat of a result applied before the restart is still a repeat.
    const back = await c.server({ serverId: g1.host.identity.serverId });
    back.reportResult(toWire(r1));
    await eventually(() => acks(back, g1.gameId).length === 1);
    expect(acks(back, g1.gameId)[0]).toEqual({ gameId: g1.gameId, applied: false, reason: 'already applied' });
    await check();
  });

  it('matches rated players whose tickets carry no score by their ratings; a score the game sends still wins', async () => {
    const seeded: [string, number][] = [['strong-a', 2100], ['strong-b', 2100], ['weak-a', 900], ['weak-b', 900], ['strong-c', 2100], ['weak-c', 900]];
    const c = (coordinator = await TestCoordinator.start(YAML, async (dir) => {
      const lmdb = LmdbStore.open(dir);
      const store = lmdb.openRatings((_, r) => standing('glicko2', r));
      for (const [player, mean] of seeded) await store.put('duel-ranked', player, { mean, deviation: 50, volatility: 0.06, games: 40 });
      await lmdb.close();
    }));
    await c.server({ serverId: 's1' });
    const client = c.client();
    const find = (player: string, score?: number) => findGame(client, { ticketId: player, template: 'duel', party: [{ playerId: player, score }] });

    // Windows are 100 + 2 x 50 (the deviation) wide: strong and weak are 1200 apart.
    const found = await Promise.all(['strong-a', 'weak-a', 'strong-b', 'weak-b'].map((p) => find(p)));
    const game = (i: number) => found[i]!.assignment.gameId;
    expect(game(0)).toBe(game(2));
    expect(game(1)).toBe(game(3));
    expect(game(0)).not.toBe(game(1));

    // weak-c sends 2100: the game's score wins over the 900 rating, so it meets strong-c.
    const [strong, weak] = await Promise.all([find('strong-c'), find('weak-c', 2100)]);
    expect(strong.assignment.gameId).toBe(weak.assignment.gameId);
  });
});
