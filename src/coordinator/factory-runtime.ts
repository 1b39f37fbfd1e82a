import type { AttributeSet } from '../attributes/attribute-value.js';
import type { CompetitiveStats } from '../competitive/index.js';
import type { CooperativeStats, StatsPredicate } from '../cooperative/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import type { Assignment, FindRequest, RunningGame, ServerChannel } from './messages.js';
import type { CoreDeps } from './ports.js';
import type { Creation, Ticket } from './tickets.js';

/** What a factory needs from the coordinator that owns it. */
export interface FactoryHost {
  createGame(creation: Creation): void;
  /** Cooperative: joins a creation made for the same query (`rideKey`), if one has room. */
  rideAlong(ticket: Ticket, rideKey: string): boolean;
  assignTicket(ticket: Ticket, assignment: Assignment): void;
  matchQueued(factory: string, tryMatch: (ticket: Ticket) => Assignment | undefined): void;
  reservationLapsed(gameId: string, playerIds: readonly string[]): void;
  gameServer(gameId: string): string | undefined;
  /** The connected server's stream and endpoint, if it is still connected. */
  link(serverId: string): { readonly channel: ServerChannel; readonly endpoint: string } | undefined;
  heldTicket(ticketId: string): Ticket | undefined;
}

/**
 * One live factory: its identity and its matcher. The factory abstraction is strategy-agnostic
 * (Battle.net talk, "Game Factories"); each strategy decides how a ticket becomes a game.
 */
export abstract class FactoryRuntime {
  abstract readonly strategy: 'cooperative' | 'competitive';

  constructor(
    readonly identity: FactoryIdentity,
    protected readonly host: FactoryHost,
    protected readonly deps: CoreDeps,
  ) {}


  /** Throws INVALID_ARGUMENT naming the field when the request does not fit this factory. */
  abstract validate(request: FindRequest): void;
  /** A new (or returned) ticket: match it, pool it, or have a game created for it. */
  abstract admit(ticket: Ticket): void;
  /** A waiting ticket left (cancelled, expired) before being placed. */
  abstract withdraw(ticketId: string): void;
  /** Tickets waiting in the matcher (not yet in a creation). */
  abstract waiting(): number;
  abstract gameCreated(creation: Creation, gameId: string): void;
  /** Problem with a game's matchable attributes, or undefined. */
  checkMatchable(matchable: AttributeSet): string | undefined {
    for (const key of matchable.keys()) {
      if (!this.identity.template.matchableKeys.includes(key)) return `"${key}" is not a matchable key of ${this.identity.name}`;
    }
    return undefined;
  }
  addGame(_game: RunningGame): void {}
  removeGame(_gameId: string): void {}
  playerJoined(_gameId: string, _playerId: string, _now: number): void {}
  playerLeft(_gameId: string, _playerId: string, _now: number): void {}
  setAttributes(_gameId: string, matchable: AttributeSet): string | undefined {
    return this.checkMatchable(matchable);
  }
  setOpen(_gameId: string, _open: boolean): void {}
  /** Seats may have opened: let queued parties take them. */
  offerSeats(): void {}
  openGames(): number {
    return 0;
  }
  stats(_predicates: readonly StatsPredicate[], _mode: 'all' | 'any' | 'none', _now: number): CooperativeStats | undefined {
    return undefined;
  }
  /** Quality of the games a competitive factory has formed. */
  competitiveStats(): CompetitiveStats | undefined {
    return undefined;
  }
  dispose(): void {}
}
