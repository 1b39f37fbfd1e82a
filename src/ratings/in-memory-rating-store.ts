import { RankedLadder } from './ranked-ladder.js';
import type { HistoryEntry, LeaderboardEntry, RatingStore, RecordedResult } from './rating-store.js';
import type { PlayerRating } from './rating-system.js';

interface LadderState {
  readonly ratings: Map<string, PlayerRating>;
  readonly ranked: RankedLadder;
  readonly results: Set<string>;
  readonly history: Map<string, HistoryEntry[]>;
}

/**
 * The RatingStore port in memory: what a coordinator built without a data directory (unit tests,
 * examples) rates with. Nothing survives the process; the LMDB adapter is the durable one.
 */
export class InMemoryRatingStore implements RatingStore {
  private readonly ladders = new Map<string, LadderState>();

  constructor(private readonly standing: (ladder: string, rating: PlayerRating) => number) {}

  get(ladder: string, player: string): PlayerRating | undefined {
    return this.ladders.get(ladder)?.ratings.get(player);
  }

  put(ladder: string, player: string, rating: PlayerRating): Promise<void> {
    this.remember(this.state(ladder), ladder, player, rating);
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
      const before = state.ratings.get(player) ?? after;
      const list = state.history.get(player) ?? [];
      list.push({ gameId: result.gameId, at: result.at, before, after });
      state.history.set(player, list);
      this.remember(state, result.ladder, player, after);
    }
    return Promise.resolve(true);
  }

  history(ladder: string, player: string, limit: number): HistoryEntry[] {
    return [...(this.ladders.get(ladder)?.history.get(player) ?? [])].reverse().slice(0, limit);
  }

  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[] {
    const state = this.ladders.get(ladder);
    if (!state) return [];
    return state.ranked.page(offset, limit).map((e, i) => ({
      player: e.player,
      rank: offset + i + 1,
      standing: e.standing,
      rating: state.ratings.get(e.player)!,
    }));
  }

  rank(ladder: string, player: string): number | undefined {
    return this.ladders.get(ladder)?.ranked.rank(player);
  }

  size(ladder: string): number {
    return this.ladders.get(ladder)?.ranked.size ?? 0;
  }

  private state(ladder: string): LadderState {
    let state = this.ladders.get(ladder);
    if (!state) {
      state = { ratings: new Map(), ranked: new RankedLadder(), results: new Set(), history: new Map() };
      this.ladders.set(ladder, state);
    }
    return state;
  }

  private remember(state: LadderState, ladder: string, player: string, rating: PlayerRating): void {
    state.ratings.set(player, rating);
    state.ranked.set(player, this.standing(ladder, rating));
  }
}
