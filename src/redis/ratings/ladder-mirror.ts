import { LadderBoards } from '../../ratings/ladder-boards.js';
import type { HistoryEntry } from '../../ratings/rating-store.js';
import type { PlayerRating } from '../../ratings/rating-system.js';

export interface MirrorLimits {
  /** History entries kept in memory per player (the full history stays in Redis). */
  readonly historyPerPlayer: number;
  /** How long a recorded game id is remembered in memory for hasResult (Redis remembers for good). */
  readonly resultMemoryMs: number;
}

/** One change of a ladder, as the change stream carries it. */
export interface LadderChange {
  readonly version: number;
  readonly gameId?: string;
  readonly players: readonly { player: string; revision: number; rating: PlayerRating; history?: HistoryEntry }[];
}

/**
 * What a node holds in memory of the ladders in Redis, so the RatingStore port's synchronous
 * reads stay O(1) / O(log n): every player's rating and revision with each ladder's RankedLadder,
 * plus recent history and recently recorded game ids. Changes are applied by revision, so a
 * change seen twice (written here, then read back from the stream) is applied once.
 */
export class LadderMirror {
  readonly boards: LadderBoards;
  private readonly revisions = new Map<string, Map<string, number>>();
  private readonly histories = new Map<string, Map<string, HistoryEntry[]>>();
  /** ladder → gameId → when it was learned, in insertion order (oldest first, for pruning). */
  private readonly results = new Map<string, Map<string, number>>();

  constructor(
    standing: (ladder: string, rating: PlayerRating) => number,
    private readonly limits: MirrorLimits,
  ) {
    this.boards = new LadderBoards(standing);
  }

  revision(ladder: string, player: string): number {
    return this.revisions.get(ladder)?.get(player) ?? 0;
  }

  /** A rating read while loading (no history, no version). */
  load(ladder: string, player: string, revision: number, rating: PlayerRating): void {
    this.setRating(ladder, player, revision, rating);
  }

  /** Applies a change: a rating only if its revision is newer, a history entry only if new. */
  apply(ladder: string, change: Omit<LadderChange, 'version'>, now: number): void {
    if (change.gameId !== undefined) this.remember(ladder, change.gameId, now);
    for (const { player, revision, rating, history } of change.players) {
      if (revision > this.revision(ladder, player)) this.setRating(ladder, player, revision, rating);
      if (history) this.addHistory(ladder, player, history);
    }
  }

  hasResult(ladder: string, gameId: string, now: number): boolean {
    const seen = this.results.get(ladder);
    if (!seen) return false;
    this.prune(seen, now);
    return seen.has(gameId);
  }

  history(ladder: string, player: string, limit: number): HistoryEntry[] {
    return (this.histories.get(ladder)?.get(player) ?? []).slice(0, limit);
  }

  private setRating(ladder: string, player: string, revision: number, rating: PlayerRating): void {
    let revisions = this.revisions.get(ladder);
    if (!revisions) this.revisions.set(ladder, (revisions = new Map()));
    revisions.set(player, revision);
    this.boards.set(ladder, player, rating);
  }

  private addHistory(ladder: string, player: string, entry: HistoryEntry): void {
    let players = this.histories.get(ladder);
    if (!players) this.histories.set(ladder, (players = new Map()));
    const list = players.get(player) ?? [];
    if (list.some((e) => e.gameId === entry.gameId)) return;
    // Newest first; an entry read late (loaded, or from the stream after a local write) goes in its place.
    let at = 0;
    while (at < list.length && list[at]!.at > entry.at) at++;
    list.splice(at, 0, entry);
    if (list.length > this.limits.historyPerPlayer) list.length = this.limits.historyPerPlayer;
    players.set(player, list);
  }

  private remember(ladder: string, gameId: string, now: number): void {
    let seen = this.results.get(ladder);
    if (!seen) this.results.set(ladder, (seen = new Map()));
    if (!seen.has(gameId)) seen.set(gameId, now);
    this.prune(seen, now);
  }

  private prune(seen: Map<string, number>, now: number): void {
    for (const [gameId, at] of seen) {
      if (now - at < this.limits.resultMemoryMs) break;
      seen.delete(gameId);
    }
  }
}
