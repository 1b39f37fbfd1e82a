import { RankedLadder } from './ranked-ladder.js';
import type { LeaderboardEntry } from './rating-store.js';
import type { PlayerRating } from './rating-system.js';

interface Board {
  readonly ratings: Map<string, PlayerRating>;
  readonly ranked: RankedLadder;
}

/**
 * Every ladder's current ratings with its RankedLadder, in memory: the part of a RatingStore that
 * answers get, rank and leaderboard pages in O(log n) without disk. Both adapters (in memory, LMDB)
 * keep one; the LMDB one fills it from disk when opened.
 */
export class LadderBoards {
  private readonly boards = new Map<string, Board>();

  constructor(private readonly standing: (ladder: string, rating: PlayerRating) => number) {}

  get(ladder: string, player: string): PlayerRating | undefined {
    return this.boards.get(ladder)?.ratings.get(player);
  }

  set(ladder: string, player: string, rating: PlayerRating): void {
    let board = this.boards.get(ladder);
    if (!board) this.boards.set(ladder, (board = { ratings: new Map(), ranked: new RankedLadder() }));
    board.ratings.set(player, rating);
    board.ranked.set(player, this.standing(ladder, rating));
  }

  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[] {
    const board = this.boards.get(ladder);
    if (!board) return [];
    return board.ranked.page(offset, limit).map((e, i) => ({
      player: e.player,
      rank: offset + i + 1,
      standing: e.standing,
      rating: board.ratings.get(e.player)!,
    }));
  }

  rank(ladder: string, player: string): number | undefined {
    return this.boards.get(ladder)?.ranked.rank(player);
  }

  size(ladder: string): number {
    return this.boards.get(ladder)?.ranked.size ?? 0;
  }
}
