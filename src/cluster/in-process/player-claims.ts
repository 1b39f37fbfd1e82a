import type { PlayerClaimConflict, PlayerIndex } from '../ports.js';

/** Which ticket holds each player, in this process. */
export class PlayerClaims implements PlayerIndex {
  private readonly ticketOf = new Map<string, string>();

  constructor(
    /** Also told of every release: a sharded node frees the players in the cluster's shared claims too. */
    private readonly released?: (ticketId: string, playerIds: readonly string[]) => void,
  ) {}

  claim(ticketId: string, playerIds: readonly string[]): PlayerClaimConflict | undefined {
    for (const playerId of playerIds) {
      const holder = this.ticketOf.get(playerId);
      if (holder !== undefined && holder !== ticketId) return { playerId, ticketId: holder };
    }
    for (const playerId of playerIds) this.ticketOf.set(playerId, ticketId);
    return undefined;
  }

  release(ticketId: string, playerIds: readonly string[]): void {
    for (const playerId of playerIds) {
      if (this.ticketOf.get(playerId) === ticketId) this.ticketOf.delete(playerId);
    }
    this.released?.(ticketId, playerIds);
  }

  holder(playerId: string): string | undefined {
    return this.ticketOf.get(playerId);
  }

  get size(): number {
    return this.ticketOf.size;
  }
}
