import type { AttributeSet } from '../attributes/attribute-value.js';
import type { CompetitiveStats } from '../competitive/index.js';
import type { CooperativeStats, StatsPredicate } from '../cooperative/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import type { CoreContext } from './core-context.js';
import type { FindRequest, RunningGame } from './messages.js';
import type { Creation, CreationPlan } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';

/** Seats reserved for a party in an open game: the coordinator tells the server and assigns. */
export interface SeatMatch {
  readonly gameId: string;
  readonly reservationToken: string;
  readonly expiresInMs: number;
}

/** A factory's answer to a ticket no open game took: a decision the core applies, never a callback. */
export type AdmitDecision =
  /** No open game fits: a new one is needed (a party may first ride along a creation with `plan.rideKey`). */
  | { readonly kind: 'create'; readonly plan: CreationPlan }
  /** Waits in the factory's pool for a batch; `estimatedWaitMs` when the factory can tell. */
  | { readonly kind: 'pooled'; readonly estimatedWaitMs?: number };

/**
 * One live factory: its identity and its matcher. The factory abstraction is strategy-agnostic
 * (Battle.net talk, "Game Factories"); each strategy decides how a ticket becomes a game. A
 * runtime never reaches out: it answers with decisions, sets its deadlines in the core's heap,
 * and is asked again when they fall due.
 */
export abstract class FactoryRuntime {
  abstract readonly strategy: 'cooperative' | 'competitive';

  constructor(
    /** Replaced only by `reconfigure`, when a reload gives the template a new version. */
    public identity: FactoryIdentity,
    protected readonly ctx: CoreContext,
  ) {}

  /**
   * Why the tickets waiting here would not fit `identity`'s settings, or undefined. A reload asks
   * every live factory before it applies anything, so a refused reload changes nothing.
   */
  misfit(_identity: FactoryIdentity, _waiting: readonly Ticket[]): string | undefined {
    return undefined;
  }

  /**
   * A reload gave the template a new version that `misfit` accepted (src/config/reload-plan.ts
   * says what may reach a live factory); `waiting` are the tickets waiting in it.
   */
  reconfigure(identity: FactoryIdentity, _waiting: readonly Ticket[]): void {
    this.identity = identity;
  }

  /** Throws INVALID_ARGUMENT naming the field when the request does not fit this factory. */
  abstract validate(request: FindRequest): void;
  /** A new (or returned) ticket that `match` found no seats for: pooled, or in need of a new game. */
  abstract admit(ticket: Ticket): AdmitDecision;
  /** Cooperative: seats for a ticket already waiting for a slot, if an open game now fits it. */
  match(_ticket: Ticket): SeatMatch | undefined {
    return undefined;
  }
  /** A waiting ticket left (cancelled, expired) before being placed. */
  abstract withdraw(ticketId: string): void;
  /** Tickets waiting in the matcher (not yet in a creation). */
  abstract waiting(): number;
  /** The game exists: returns the players who rode along after the order and need seats reserved. */
  abstract gameCreated(creation: Creation, gameId: string): readonly string[];
  /** Problem with a game's matchable attributes, or undefined. */
  checkMatchable(matchable: AttributeSet): string | undefined {
    for (const key of matchable.keys()) {
      if (!this.identity.template.matchableKeys.includes(key)) return `"${key}" is not a matchable key of ${this.identity.name}`;
    }
    return undefined;
  }
  addGame(_game: RunningGame): void {}
  /** Seats in a re-announced game for players the coordinator ordered it for who are not in it yet. */
  holdSeats(_gameId: string, _playerIds: readonly string[], _token: string): void {}
  /** The game is gone; returns every player who held a seat in it (joined or reserved). */
  abstract removeGame(gameId: string): readonly string[];
  /** The game was made for this player (a competitive roster): having dropped out, they may come back. */
  mayRejoin(_gameId: string, _playerId: string): boolean {
    return false;
  }
  playerJoined(_gameId: string, _playerId: string, _now: number): void {}
  playerLeft(_gameId: string, _playerId: string, _now: number): void {}
  /** Cooperative: frees the reserved seats whose deadline passed; returns them. */
  expireReservations(_now: number): readonly { readonly gameId: string; readonly playerIds: readonly string[] }[] {
    return [];
  }
  setAttributes(_gameId: string, matchable: AttributeSet): string | undefined {
    return this.checkMatchable(matchable);
  }
  setOpen(_gameId: string, _open: boolean): void {}
  openGames(): number {
    return 0;
  }
  /** Games running, for stats: cooperative games it indexes, competitive games it formed and that still run. */
  stats(_predicates: readonly StatsPredicate[], _mode: 'all' | 'any' | 'none', _now: number): CooperativeStats | undefined {
    return undefined;
  }
  /** Quality of the games a competitive factory has formed. */
  competitiveStats(): CompetitiveStats | undefined {
    return undefined;
  }
  /** The factory drained: its deadlines go with it. */
  dispose(): void {}
}
