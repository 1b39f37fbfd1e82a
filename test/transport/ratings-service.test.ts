import { credentials, Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RatingsClient,
  RatingsService,
  type GetRatingRequest,
  type GetRatingResponse,
  type LeaderboardRequest,
  type LeaderboardResponse,
  type PlayerRankRequest,
  type PlayerRankResponse,
} from '../../src/generated/gamefactory/v1/ratings.js';
import { DEFAULT_GLICKO2, ratingSystem, type LadderConfig, type PlayerRating } from '../../src/ratings/index.js';
import { ratingsView } from '../../src/ratings/ratings-view.js';
import { rateResult } from '../../src/ratings/result-rules.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { ratingsHandlers } from '../../src/transport/grpc/ratings-service.js';
import { standing } from '../../src/ratings/index.js';

const ladder: LadderConfig = { name: 'ranked', system: DEFAULT_GLICKO2, minGameSeconds: 60, earlyLeaverCountsAsLoss: true };
const system = ratingSystem(ladder);

let dir: string;
let lmdb: LmdbStore;
let server: Server;
let client: RatingsClient;

const promised = <Res>(send: (cb: (err: ServiceError | null, res: Res) => void) => unknown) =>
  new Promise<Res>((resolve, reject) => send((err, res) => (err ? reject(err) : resolve(res))));
const rpc = {
  getRating: (req: GetRatingRequest) => promised<GetRatingResponse>((cb) => client.getRating(req, cb)),
  leaderboard: (req: LeaderboardRequest) => promised<LeaderboardResponse>((cb) => client.leaderboard(req, cb)),
  playerRank: (req: PlayerRankRequest) => promised<PlayerRankResponse>((cb) => client.playerRank(req, cb)),
};
const refusal = async (p: Promise<unknown>): Promise<ServiceError> => {
  try {
    await p;
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error('answered');
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gf-ratings-svc-'));
  lmdb = LmdbStore.open(dir);
  const store = lmdb.openRatings((_, r) => standing('glicko2', r));
  // Three 1v1 games: w beats everyone, m beats l.
  for (const [gameId, winner, loser] of [['g1', 'w', 'm'], ['g2', 'w', 'l'], ['g3', 'm', 'l']] as const) {
    const current = new Map<string, PlayerRating>();
    for (const p of [winner, loser]) {
      const r = store.get('ranked', p);
      if (r) current.set(p, r);
    }
    const rated = rateResult(system, ladder, { gameId, serverId: 's', teams: [{ players: [winner], rank: 0 }, { players: [loser], rank: 1 }], durationSeconds: 300, leftEarly: [] }, current, 1);
    if (!rated.counted) throw new Error('not counted');
    await store.recordResult({ ladder: 'ranked', gameId, at: 0, ratings: rated.ratings });
  }
  server = new Server();
  server.addService(RatingsService, ratingsHandlers(ratingsView(new Map([['ranked', ladder]]), store)));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  client = new RatingsClient(`127.0.0.1:${port}`, credentials.createInsecure());
});

afterAll(async () => {
  client.close();
  server.forceShutdown();
  await lmdb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Ratings over gRPC (loopback)', () => {
  it('GetRating answers the stored rating with its standing', async () => {
    const res = await rpc.getRating({ ladder: 'ranked', playerId: 'w' });
    expect(res.rating!.games).toBe(2);
    expect(res.rating!.mean).toBeGreaterThan(1500);
    expect(res.rating!.rankPoints).toBeGreaterThan(0);
    expect(res.rating!.standing).toBe(res.rating!.rankPoints);
  });

  it('Leaderboard pages best first, with the total', async () => {
    const res = await rpc.leaderboard({ ladder: 'ranked', offset: 0, limit: 0 });
    expect(res.entries.map((e) => e.rating!.playerId)).toEqual(['w', 'm', 'l']);
    expect(res.entries.map((e) => e.rank)).toEqual([1n, 2n, 3n]);
    expect(res.total).toBe(3n);
    const second = await rpc.leaderboard({ ladder: 'ranked', offset: 1, limit: 1 });
    expect(second.entries.map((e) => e.rating!.playerId)).toEqual(['m']);
  });

  it('PlayerRank answers the place and the total', async () => {
    const res = await rpc.playerRank({ ladder: 'ranked', playerId: 'l' });
    expect(res.rank).toBe(3n);
    expect(res.total).toBe(3n);
  });

  it.each([
    ['GetRating without a ladder', () => rpc.getRating({ ladder: '', playerId: 'w' }), status.INVALID_ARGUMENT, /^ladder: required/],
    ['GetRating without a player', () => rpc.getRating({ ladder: 'ranked', playerId: '' }), status.INVALID_ARGUMENT, /^player_id: required/],
    ['an unknown ladder', () => rpc.leaderboard({ ladder: 'nope', offset: 0, limit: 10 }), status.NOT_FOUND, /^ladder: no ladder named "nope"/],
    ['a page too large', () => rpc.leaderboard({ ladder: 'ranked', offset: 0, limit: 5000 }), status.INVALID_ARGUMENT, /^limit: at most 1000/],
    ['an unrated player', () => rpc.playerRank({ ladder: 'ranked', playerId: 'ghost' }), status.NOT_FOUND, /^player_id: "ghost" has no rating/],
  ])('refuses %s', async (_, request, code, message) => {
    const error = await refusal(request());
    expect(error.code).toBe(code);
    expect(error.details).toMatch(message);
  });
});
