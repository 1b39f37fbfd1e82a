import type { PlayerRating } from './rating-system.js';

/** One rated game in a player's history. */
export interface HistoryEntry {
  readonly gameId: string;
  /** When the result was applied, ms since the epoch. */
  readonly at: number;
  readonly before: PlayerRating;
  readonly after: PlayerRating;
}

export interface LeaderboardEntry {
  readonly player: string;
  /** 1-based: 1 is the top. */
  readonly rank: number;
  /** The number the board is ordered by (see ratings/index.ts `standing`). */
  readonly standing: number;
  readonly rating: PlayerRating;
}

/** A game's new ratings, to be recorded once. */
export interface RecordedResult {
  readonly ladder: string;
  readonly gameId: string;
  readonly at: number;
  /** Every rated player's new rating (players of a game that did not count: none). */
  readonly ratings: ReadonlyMap<string, PlayerRating>;
}

/**
 * The port for ratings, results and history. Reads are synchronous (served from memory
 * or a memory-mapped store); writes resolve when durable. The embedded adapter is LMDB
 * (src/storage/lmdb-rating-store.ts); the distributed mode can put one in Redis.
 */
export interface RatingStore {
  get(ladder: string, player: string): PlayerRating | undefined;
  put(ladder: string, player: string, rating: PlayerRating): Promise<void>;
  hasResult(ladder: string, gameId: string): boolean;
  /**
   * Applies a game's ratings and appends each player's history, once per (ladder, game id):
   * resolves false, changing nothing, when that game was already recorded.
   */
  recordResult(result: RecordedResult): Promise<boolean>;
  /** A player's most recent games first, at most `limit`. */
  history(ladder: string, player: string, limit: number): HistoryEntry[];
  /** Players from 0-based `offset`, best first. O(log n + limit). */
  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[];
  /** 1-based rank, O(log n); undefined for a player with no rating on the ladder. */
  rank(ladder: string, player: string): number | undefined;
  /** Rated players on the ladder. */
  size(ladder: string): number;
}
