import { standing } from './index.js';
import type { LeaderboardEntry, RatingStore } from './rating-store.js';
import type { LadderConfig, PlayerRating } from './rating-system.js';

/** What the Ratings service reads: the configured ladders and their store. No coordinator. */
export interface RatingsView {
  hasLadder(ladder: string): boolean;
  get(ladder: string, player: string): PlayerRating | undefined;
  standing(ladder: string, rating: PlayerRating): number;
  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[];
  rank(ladder: string, player: string): number | undefined;
  size(ladder: string): number;
}

/** The view over a store for the ladders of factories.yaml. */
export function ratingsView(ladders: ReadonlyMap<string, LadderConfig>, store: RatingStore): RatingsView {
  return {
    hasLadder: (ladder) => ladders.has(ladder),
    get: (ladder, player) => store.get(ladder, player),
    standing: (ladder, rating) => standing(ladders.get(ladder)!.system.kind, rating),
    leaderboard: (ladder, offset, limit) => store.leaderboard(ladder, offset, limit),
    rank: (ladder, player) => store.rank(ladder, player),
    size: (ladder) => store.size(ladder),
  };
}
