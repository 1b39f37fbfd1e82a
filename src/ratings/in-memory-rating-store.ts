import { LadderBoards } from './ladder-boards.js';
import type { HistoryEntry, LeaderboardEntry, RatingStore, RecordedResult } from './rating-store.js';
import type { PlayerRating } from './rating-system.js';

interface LadderState {
  readonly results: Set<string>;
  readonly history: Map<string, HistoryEntry[]>;
}

/**
 * The RatingStore port in memory: what a coordinator built without a data directory (unit tests,
 * examples) rates with. Nothing survives the process; the LMDB adapter is the durable one.
 */
export class InMemoryRatingStore implements RatingStore {
  private readonly ladders = new Map<string, LadderState>();
  private readonly boards: LadderBoards;

  constructor(standing: (ladder: string, rating: PlayerRating) => number) {
    this.boards = new LadderBoards(standing);
  }

  get(ladder: string, player: string): PlayerRating | undefined {
    return this.boards.get(ladder, player);
  }

  put(ladder: string, player: string, rating: PlayerRating): Promise<void> {
    this.boards.set(ladder, player, rating);
    return Promise.resolve();
  }

  hasResult(ladder: string, gameId: string): boolean {
    return this.ladders.get(ladder)?.results.has(gameId) ?? false;
  }

  recordResult(result: RecordedResult): Promise<boolean> {
    const state = this.state(result.ladder);
    if (state.results.has(result.gameId)) return Promise.resolve(false);
    state.results.add(result.gameId);
    for (const [player, after] of result.ratings) {
      const before = this.boards.get(result.ladder, player) ?? after;
      const list = state.history.get(player) ?? [];
      list.push({ gameId: result.gameId, at: result.at, before, after });
      state.history.set(player, list);
      this.boards.set(result.ladder, player, after);
    }
    return Promise.resolve(true);
  }

  history(ladder: string, player: string, limit: number): HistoryEntry[] {
    return [...(this.ladders.get(ladder)?.history.get(player) ?? [])].reverse().slice(0, limit);
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

  private state(ladder: string): LadderState {
    let state = this.ladders.get(ladder);
    if (!state) {
      state = { results: new Set(), history: new Map() };
      this.ladders.set(ladder, state);
    }
    return state;
  }
}
