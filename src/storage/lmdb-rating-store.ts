import type { Database, RootDatabase } from 'lmdb';
import { LadderBoards } from '../ratings/ladder-boards.js';
import type { HistoryEntry, LeaderboardEntry, RatingStore, RecordedResult } from '../ratings/rating-store.js';
import type { PlayerRating } from '../ratings/rating-system.js';

type RatingKey = [ladder: string, player: string];
type ResultKey = [ladder: string, gameId: string];
type HistoryKey = [ladder: string, player: string, at: number, gameId: string];

/**
 * Ratings, recorded results and histories in three named sub-databases of the coordinator's LMDB
 * environment. Ratings are also held in memory with each ladder's RankedLadder, rebuilt from
 * LMDB when opened, so rank and leaderboard reads are O(log n) and need no disk.
 */
export class LmdbRatingStore implements RatingStore {
  private readonly ratingsDb: Database<PlayerRating, RatingKey>;
  private readonly resultsDb: Database<{ at: number; players: string[] }, ResultKey>;
  private readonly historyDb: Database<HistoryEntry, HistoryKey>;
  private readonly boards: LadderBoards;
  /** Results applied in memory whose transaction has not committed yet. */
  private readonly pending = new Set<string>();

  constructor(
    root: RootDatabase,
    /** The number a ladder's board is ordered by (ratings/index.ts `standing`). */
    standing: (ladder: string, rating: PlayerRating) => number,
  ) {
    this.boards = new LadderBoards(standing);
    this.ratingsDb = root.openDB({ name: 'ratings' });
    this.resultsDb = root.openDB({ name: 'rating-results' });
    this.historyDb = root.openDB({ name: 'rating-history' });
    for (const { key, value } of this.ratingsDb.getRange()) this.boards.set(key[0], key[1], value);
  }

  get(ladder: string, player: string): PlayerRating | undefined {
    return this.boards.get(ladder, player);
  }

  async put(ladder: string, player: string, rating: PlayerRating): Promise<void> {
    this.boards.set(ladder, player, rating);
    await this.ratingsDb.put([ladder, player], rating);
  }

  hasResult(ladder: string, gameId: string): boolean {
    return this.pending.has(resultId(ladder, gameId)) || this.resultsDb.doesExist([ladder, gameId]);
  }

  async recordResult(result: RecordedResult): Promise<boolean> {
    const { ladder, gameId, at } = result;
    if (this.hasResult(ladder, gameId)) return false;
    const id = resultId(ladder, gameId);
    this.pending.add(id);
    const writes: [string, PlayerRating, PlayerRating][] = [];
    for (const [player, after] of result.ratings) {
      const before = this.get(ladder, player);
      writes.push([player, before ?? after, after]);
      this.boards.set(ladder, player, after);
    }
    try {
      await this.ratingsDb.transaction(() => {
        void this.resultsDb.put([ladder, gameId], { at, players: writes.map(([p]) => p) });
        for (const [player, before, after] of writes) {
          void this.ratingsDb.put([ladder, player], after);
          void this.historyDb.put([ladder, player, at, gameId], { gameId, at, before, after });
        }
      });
    } finally {
      this.pending.delete(id);
    }
    return true;
  }

  history(ladder: string, player: string, limit: number): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    const range = this.historyDb.getRange({
      start: [ladder, player, Number.MAX_SAFE_INTEGER, ''],
      end: [ladder, player, -1, ''],
      reverse: true,
      limit,
    });
    for (const { value } of range) out.push(value);
    return out;
  }

  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[] {
    return this.boards.leaderboard(ladder, offset, limit);
  }

  rank(ladder: string, player: string): number | undefined {
    return this.boards.rank(ladder, player);
  }

  size(ladder: string): number {
    return this.boards.size(ladder);
  }

  /** Resolves when every write so far is on disk. */
  flushed(): Promise<boolean> {
    return this.ratingsDb.flushed;
  }

}

const resultId = (ladder: string, gameId: string) => `${ladder}\u0000${gameId}`;
