import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { invalidArgument, MatchmakingError } from '../../errors/index.js';
import type {
  GetRatingRequest,
  GetRatingResponse,
  LeaderboardRequest,
  LeaderboardResponse,
  PlayerRankRequest,
  PlayerRankResponse,
  Rating,
} from '../../generated/gamefactory/v1/ratings.js';
import type { PlayerRating } from '../../ratings/rating-system.js';
import type { RatingsView } from '../../ratings/ratings-view.js';
import { toServiceError } from './status.js';

const MAX_PAGE = 1000;
const DEFAULT_PAGE = 100;

/** The Ratings service (ratings.proto) over a RatingsView. */
export function ratingsHandlers(view: RatingsView) {
  const ladderOf = (ladder: string): string => {
    if (ladder === '') throw invalidArgument('ladder', 'required');
    if (!view.hasLadder(ladder)) throw new MatchmakingError('NOT_FOUND', `ladder: no ladder named "${ladder}"`);
    return ladder;
  };
  const playerOf = (playerId: string): string => {
    if (playerId === '') throw invalidArgument('player_id', 'required');
    return playerId;
  };
  const ratedOf = (ladder: string, player: string): PlayerRating => {
    const rating = view.get(ladder, player);
    if (!rating) throw new MatchmakingError('NOT_FOUND', `player_id: "${player}" has no rating on ladder "${ladder}"`);
    return rating;
  };
  const wire = (ladder: string, player: string, r: PlayerRating): Rating => ({
    playerId: player,
    mean: r.mean,
    deviation: r.deviation,
    volatility: r.volatility,
    games: r.games,
    rankPoints: r.rankPoints,
    standing: view.standing(ladder, r),
  });
  const unary =
    <Req, Res>(answer: (request: Req) => Res) =>
    (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
      try {
        callback(null, answer(call.request));
      } catch (error) {
        callback(toServiceError(error));
      }
    };

  return {
    getRating: unary<GetRatingRequest, GetRatingResponse>((req) => {
      const ladder = ladderOf(req.ladder);
      const player = playerOf(req.playerId);
      return { rating: wire(ladder, player, ratedOf(ladder, player)) };
    }),
    leaderboard: unary<LeaderboardRequest, LeaderboardResponse>((req) => {
      const ladder = ladderOf(req.ladder);
      if (req.limit > MAX_PAGE) throw invalidArgument('limit', `at most ${MAX_PAGE}`);
      const entries = view.leaderboard(ladder, req.offset, req.limit === 0 ? DEFAULT_PAGE : req.limit);
      return {
        entries: entries.map((e) => ({ rank: BigInt(e.rank), rating: wire(ladder, e.player, e.rating) })),
        total: BigInt(view.size(ladder)),
      };
    }),
    playerRank: unary<PlayerRankRequest, PlayerRankResponse>((req) => {
      const ladder = ladderOf(req.ladder);
      const player = playerOf(req.playerId);
      const rating = ratedOf(ladder, player);
      return { rank: BigInt(view.rank(ladder, player)!), total: BigInt(view.size(ladder)), rating: wire(ladder, player, rating) };
    }),
  };
}
