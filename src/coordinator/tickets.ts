import type { AttributeSet } from '../attributes/attribute-value.js';
import type { Assignment, FindRequest, TicketListener } from './messages.js';

/**
 * A FindGame in progress. One party; its players are in no other ticket or game meanwhile.
 *
 * matching: waiting in a matcher (competitive pool)
 * placing:  part of a game creation, queued for a slot or sent to a server
 * assigned: done; kept until its time to live so a retry gets the same assignment
 */
export interface Ticket {
  readonly id: string;
  readonly request: FindRequest;
  /** Equal for retries of the same request; a different request under the same id is refused. */
  readonly fingerprint: string;
  readonly factory: string;
  readonly playerIds: readonly string[];
  readonly createdAt: number;
  /** Global arrival order, kept across restarts: the ticket's priority for a slot. */
  readonly arrival: number;
  state: 'matching' | 'placing' | 'assigned';
  listener: TicketListener | undefined;
  /** The game creation carrying this ticket, while placing. */
  creationId: string | undefined;
  assignment: Assignment | undefined;
  /** Written to the ticket store (it had to wait). */
  persisted: boolean;
  /** Cancels the pending expiry (time to live while waiting, retention once assigned). */
  cancelExpiry: () => void;
}

/**
 * One CreateGame order: the tickets that will sit in the new game. Queued while no slot is free,
 * then in flight on one server until it confirms. Cooperative creations take riders: later
 * parties with the same query share the game while it has seats.
 */
export interface Creation {
  readonly requestId: string;
  readonly factory: string;
  readonly matchable: AttributeSet;
  /** Exact query key that riders must share (cooperative), or undefined (competitive). */
  readonly rideKey: string | undefined;
  readonly ticketIds: string[];
  /** Seats in order, with each seat's team (competitive) and ticket. */
  readonly seats: { playerId: string; team: number; ticketId: string }[];
  readonly capacity: number;
  /** Seats named in the CreateGame order; riders after it get a ReserveSeats once the game exists. */
  dispatchedSeats: number;
  readonly map: string;
  readonly region: string;
  readonly token: string;
  /** placing: asking for a slot; queued: waiting in line; inflight: ordered on a server; done. */
  stage: 'placing' | 'queued' | 'inflight' | 'done';
  /** Queue sequence number: a creation taken back returns at this priority. */
  priority: number | undefined;
  /** When it last joined the queue, for the wait-time metric. */
  queuedAt?: number;
  serverId: string | undefined;
  cancelTimeout: (() => void) | undefined;
}

export function fingerprint(request: FindRequest): string {
  const sorted = (m: ReadonlyMap<string, unknown>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    request.template,
    request.party.map((p) => [p.playerId, p.score ?? null]),
    sorted(request.partition),
    sorted(request.matchable),
    sorted(request.latenciesMs),
    request.preferredMaps,
    request.vetoedMaps,
  ]);
}
