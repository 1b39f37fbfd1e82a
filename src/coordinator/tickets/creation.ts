import type { MatchQualityFigures } from '../messages.js';
import type { AttributeSet } from '../../attributes/attribute-value.js';

/** What a factory decides a new game should be; GameCreations turns it into a Creation. */
export interface CreationPlan {
  readonly factory: string;
  readonly strategy: 'cooperative' | 'competitive';
  readonly partition: AttributeSet;
  readonly matchable: AttributeSet;
  /** Exact query key that riders must share (cooperative), or undefined (competitive). */
  readonly rideKey: string | undefined;
  readonly ticketIds: readonly string[];
  /** Seats in order, with each seat's team (competitive) and ticket. */
  readonly seats: readonly { playerId: string; team: number; ticketId: string }[];
  readonly capacity: number;
  readonly map: string;
  readonly region: string;
  /** Competitive games: the predicted balance the matcher gave the game. */
  readonly quality?: MatchQualityFigures;
}

/**
 * One CreateGame order: the tickets that will sit in the new game. Queued while no slot is free,
 * then in flight on one server until it confirms. Cooperative creations take riders: later
 * parties with the same query share the game while it has seats. Owned by GameCreations.
 */
export interface Creation extends Omit<CreationPlan, 'ticketIds' | 'seats'> {
  readonly requestId: string;
  /** Replaced, never changed in place, when a rider joins (see GameCreations.rideAlong) or a ticket leaves: events hold it. */
  ticketIds: string[];
  seats: { playerId: string; team: number; ticketId: string }[];
  /** Seats named in the CreateGame order; riders after it get a ReserveSeats once the game exists. */
  dispatchedSeats: number;
  /** Orders sent so far: each attempt is a distinct order (an id the edge will not drop as a repeat). */
  dispatches: number;
  /** When its latest order was sent, on the core's clock. */
  orderedAt: number | undefined;
  /** Its tickets are stored with where it was sent (see GameCreations.storeTickets); riders are, as they join. */
  storedInFlight: boolean;
  readonly token: string;
  /** queued: waiting in line; inflight: ordered on a server; done. */
  stage: 'queued' | 'inflight' | 'done';
  /** Queue priority: a creation taken back returns at this one. */
  readonly priority: number;
  /** When it last joined the queue, for the wait-time metric. */
  queuedAt?: number;
  serverId: string | undefined;
}
