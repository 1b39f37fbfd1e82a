import type { TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { Assignment, FindRequest, TicketListener } from '../messages.js';

/**
 * Where a ticket stands. A ticket is in exactly one of these until it ends (then it leaves the
 * book, and the end's reason goes to its listener and the findFinished event).
 *
 * parked:   restored after a restart; its factory has no server yet
 * pooled:   waiting in its factory (a competitive pool), or being matched right now
 * placing:  part of a game creation; `position` is its place in the line for a slot, once queued
 * assigned: done; kept a little so a retry gets the same assignment
 */
export type TicketState =
  | { readonly kind: 'parked' }
  | { readonly kind: 'pooled' }
  | { readonly kind: 'placing'; readonly creationId: string; readonly position: number | undefined }
  | { readonly kind: 'assigned'; readonly assignment: Assignment };

export type TicketStateKind = TicketState['kind'];

export type EndReason = 'cancelled' | 'expired' | 'failed' | 'retention-over';

/** A FindGame in progress. One party; its players are in no other live ticket meanwhile. */
export interface Ticket {
  readonly id: string;
  readonly request: FindRequest;
  readonly factory: string;
  readonly playerIds: readonly string[];
  readonly createdAt: number;
  /** Arrival order (the core's counter, after restored tickets), kept across restarts: its priority for a slot. */
  readonly arrival: number;
  /** Who may cancel or resume it; absent: anyone (a trusted in-process caller opened it). */
  readonly owner: TicketOwner | undefined;
  /** Moved only by TicketBook. */
  readonly state: TicketState;
  readonly listener: TicketListener | undefined;
  /** Written to the ticket store (it had to wait). */
  readonly persisted: boolean;
}

/** Equal for retries of the same request; a different request under the same id is refused. */
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
    request.waitBudgetMs ?? null,
    request.maxLatencyMs ?? null,
    request.location ? [request.location.latitude, request.location.longitude] : null,
    request.softAttributes ? sorted(request.softAttributes) : null,
  ]);
}
