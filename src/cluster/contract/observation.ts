/**
 * What a cluster's clients and game servers saw, as plain data in time order: the input of the
 * contract (ContractMonitor). `at` is milliseconds on whatever single clock the feeder uses (the
 * simulator's, or the wall clock of one machine for real processes).
 */

/** A client called FindGame: its first call, or a resume with the same ticket id. */
export interface FindObserved {
  readonly kind: 'find';
  readonly at: number;
  readonly ticketId: string;
  readonly playerIds: readonly string[];
  readonly factory: string;
  readonly callId: string;
}

/** A client was told its ticket is queued (with its place in the factory's slot queue, if any). */
export interface QueuedObserved {
  readonly kind: 'queued';
  readonly at: number;
  readonly ticketId: string;
  readonly position?: number;
}

/** A client was told its assignment. */
export interface AssignedObserved {
  readonly kind: 'assigned';
  readonly at: number;
  readonly ticketId: string;
  readonly serverId: string;
  readonly gameId: string;
  readonly token: string;
}

export type EndReason = 'cancelled' | 'expired' | 'declined' | 'refused' | 'other';

/** A client was told its ticket ended without a game (a retryable UNAVAILABLE is not an end: the client resumes). */
export interface EndedObserved {
  readonly kind: 'ended';
  readonly at: number;
  readonly ticketId: string;
  readonly reason: EndReason;
  readonly detail: string;
}

/** The owner of a ticket asked to cancel it: a later 'cancelled' end is legitimate. */
export interface CancelAskedObserved {
  readonly kind: 'cancel-asked';
  readonly at: number;
  readonly ticketId: string;
}

/** Any call, and its first answer or error (a status with a retry hint counts as an answer). */
export interface CallObserved {
  readonly kind: 'call-started' | 'call-answered';
  readonly at: number;
  readonly callId: string;
  /** When the call must have its first answer by (on call-started). */
  readonly deadlineAt?: number;
}

/** A game server learned of a reservation (a CreateGame or ReserveSeats order received). */
export interface SeatObserved {
  readonly kind: 'seat';
  readonly at: number;
  readonly serverId: string;
  readonly gameId: string;
  readonly playerId: string;
  readonly token: string;
}

/** The server dropped a seat (expired unused, the player left). */
export interface SeatFreedObserved {
  readonly kind: 'seat-freed';
  readonly at: number;
  readonly serverId: string;
  readonly gameId: string;
  readonly playerId: string;
}

export interface GameObserved {
  readonly kind: 'game';
  readonly at: number;
  readonly serverId: string;
  readonly gameId: string;
  readonly factory: string;
  readonly maxPlayers: number;
}

/** The server ended a game: every seat in it is free. */
export interface GameEndedObserved {
  readonly kind: 'game-ended';
  readonly at: number;
  readonly serverId: string;
  readonly gameId: string;
}

/** The server advertises this many games at most. */
export interface SlotsObserved {
  readonly kind: 'slots';
  readonly at: number;
  readonly serverId: string;
  readonly maxGames: number;
}

/** A node took a shard's lease with this fencing token. */
export interface FenceObserved {
  readonly kind: 'fence';
  readonly at: number;
  readonly shard: number;
  readonly token: number;
  readonly node: string;
}

export interface NodeDiedObserved {
  readonly kind: 'node-died';
  readonly at: number;
  readonly node: string;
}

/** Capacity exists again for a factory (a server freed or added slots that can host it). */
export interface CapacityObserved {
  readonly kind: 'capacity';
  readonly at: number;
  readonly factory: string;
}

export type Observation =
  | FindObserved
  | QueuedObserved
  | AssignedObserved
  | EndedObserved
  | CancelAskedObserved
  | CallObserved
  | SeatObserved
  | SeatFreedObserved
  | GameObserved
  | GameEndedObserved
  | SlotsObserved
  | FenceObserved
  | NodeDiedObserved
  | CapacityObserved;
