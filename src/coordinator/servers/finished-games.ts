/**
 * How long a ranked game's result may come after its GameEnded (or its server's disconnection):
 * servers often report once the last player's stats are in, after the game itself has closed.
 */
export const RESULT_RETENTION_MS = 15 * 60_000;

/** A ranked game as a result is checked against: who hosts it and everyone ever seated in it. */
export interface RankedGame {
  readonly gameId: string;
  readonly serverId: string;
  readonly factory: string;
  readonly ladder: string;
  /** Players the coordinator seated in it (by creation or reservation), early leavers included: they are rated too. */
  readonly players: ReadonlySet<string>;
  /** When the coordinator saw it start (its creation confirmed), on the coordinator's clock. */
  readonly startedAt: number;
  /** When it ended (GameEnded, or its server left); undefined while it runs. */
  readonly endedAt: number | undefined;
  /**
   * Only re-announced in a hello, never created by this coordinator: its players are the server's
   * word, so its result cannot count.
   */
  readonly announced: boolean;
}

/**
 * Ranked games that ended and whose result is not in yet, forgotten RESULT_RETENTION_MS after
 * they ended. Insertion order is end order on one clock, so the expired ones are at the front:
 * pruning is O(1) amortized, with no timer per game.
 */
export class FinishedGames {
  private readonly games = new Map<string, { readonly game: RankedGame; readonly endedAt: number }>();

  constructor(private readonly retentionMs = RESULT_RETENTION_MS) {}

  get size(): number {
    return this.games.size;
  }

  ended(game: RankedGame, now: number): void {
    this.prune(now);
    this.games.delete(game.gameId);
    this.games.set(game.gameId, { game, endedAt: now });
  }

  get(gameId: string, now: number): RankedGame | undefined {
    this.prune(now);
    return this.games.get(gameId)?.game;
  }

  /** Its result is in, or its server re-announced it (it runs again). */
  forget(gameId: string): void {
    this.games.delete(gameId);
  }

  private prune(now: number): void {
    for (const [gameId, { endedAt }] of this.games) {
      if (now - endedAt < this.retentionMs) return;
      this.games.delete(gameId);
    }
  }
}
