/**
 * Seats a backfill reserved in a competitive game for players who have not joined yet, each until
 * its deadline: a newcomer who never arrives frees the seat (and may find another game), as a
 * cooperative drop-in reservation lapses. Few at a time: kept in one map by player.
 */
export class BackfillSeats {
  private readonly held = new Map<string, { readonly gameId: string; readonly expiresAt: number }>();

  hold(gameId: string, playerIds: readonly string[], expiresAt: number): void {
    for (const playerId of playerIds) this.held.set(playerId, { gameId, expiresAt });
  }

  /** The player arrived (or its game ended): its seat is no longer a reservation. */
  release(gameId: string, playerId: string): void {
    if (this.held.get(playerId)?.gameId === gameId) this.held.delete(playerId);
  }

  releaseGame(gameId: string): void {
    for (const [playerId, seat] of this.held) if (seat.gameId === gameId) this.held.delete(playerId);
  }

  /** Seats whose deadline passed, by game, taken out. */
  lapse(now: number): { gameId: string; playerIds: string[] }[] {
    const byGame = new Map<string, string[]>();
    for (const [playerId, seat] of this.held) {
      if (seat.expiresAt > now) continue;
      this.held.delete(playerId);
      let players = byGame.get(seat.gameId);
      if (!players) byGame.set(seat.gameId, (players = []));
      players.push(playerId);
    }
    return [...byGame].map(([gameId, playerIds]) => ({ gameId, playerIds }));
  }

  /** The earliest deadline, if any seat is held. */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const seat of this.held.values()) if (next === undefined || seat.expiresAt < next) next = seat.expiresAt;
    return next;
  }
}
