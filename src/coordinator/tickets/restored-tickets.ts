import { PresenceCounts } from '../../collections/presence-counts.js';
import { MatchmakingError } from '../../errors/index.js';
import { TicketOwnership, type TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { Principal } from '../../security/tokens/principal.js';
import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';
import type { Assignment, FindRequest } from '../messages.js';
import { fingerprint, type Ticket } from './ticket.js';
import type { TicketRecord } from './ticket-record.js';

export function ticketIdReused(ticketId: string): MatchmakingError {
  return new MatchmakingError('ALREADY_EXISTS', `ticket_id: "${ticketId}" is already used by a different request; choose a new ticket id`);
}

/**
 * Only a ticket's owner may cancel or resume it, so one player cannot end or take over another's
 * search; a ticket without an owner, or a trusted caller, passes.
 */
export function checkOwner(caller: Principal | undefined, owner: TicketOwner | undefined, ticketId: string, action: 'cancel' | 'resume' | 'answer a match for'): void {
  if (!caller || !owner) return;
  if (!TicketOwnership.mayActOn(caller, owner)) {
    throw new MatchmakingError('PERMISSION_DENIED', `ticket_id "${ticketId.slice(0, 128)}": only its owner may ${action} it (you are ${caller.role} "${caller.subject}")`);
  }
}

/**
 * A second call for a ticket an edge still holds a call for (a cluster node's gateway): only the
 * same request from its owner takes it over, as the core checks a retry. Checked at the edge, since
 * the answers of a ticket go to the call that holds it: a different request let in until the owner
 * refused it would hear the first call's updates, and leave that call unanswered when refused.
 */
export function checkTakeOver(request: FindRequest, held: FindRequest): void {
  if (fingerprint(request) !== fingerprint(held)) throw ticketIdReused(request.ticketId);
  const owner = held.caller && TicketOwnership.ownerOf(held.caller, held.party.map((p) => p.playerId));
  checkOwner(request.caller, owner, request.ticketId, 'resume');
}

/** What the earlier call of a ticket is told when the same request takes it over (as on one node). */
export function resumedElsewhere(ticketId: string): MatchmakingError {
  return new MatchmakingError('CANCELLED', `ticket "${ticketId}" was resumed by another call`);
}

export interface RestoredTicket {
  readonly record: TicketRecord;
  readonly fingerprint: string;
  /** Its game was ordered before the restart and its server has re-announced it: the retry's answer. */
  assignment?: Assignment;
}

/**
 * Tickets that survived a restart (or a change of matcher owner), until their client retries
 * (then they open with their original arrival) or their time to live ends (then they leave the
 * store).
 */
export class RestoredTickets {
  private readonly waiting = new Map<string, RestoredTicket>();
  /** Restored tickets whose game was ordered and not yet confirmed, by the CreateGame's request id. */
  private readonly byCreation = new Map<string, Set<string>>();
  /**
   * The arrivals of the waiting ones by factory, built on the first `aheadOf` (factories are the
   * registry's to name) and kept as tickets leave and come back: a queued client's place counts
   * them in O(log n). A scan per place told, thousands of restored tickets by the thousands of
   * places told after a shard's takeover, stalled a cluster node for seconds, past its leases.
   */
  private arrivals: { readonly byFactory: Map<string, PresenceCounts>; readonly factoryOf: Map<string, string> } | undefined;
  private stopping = false;

  constructor(
    private readonly ctx: CoreContext,
    private readonly ttlMs: number,
    records: readonly TicketRecord[],
  ) {
    for (const record of records) this.putBack({ record, fingerprint: fingerprint(record.request) });
  }

  get size(): number {
    return this.waiting.size;
  }

  /** The restored ticket a retry asks for, taken out; throws if the id now names another request. */
  take(request: FindRequest): RestoredTicket | undefined {
    const entry = this.waiting.get(request.ticketId);
    if (!entry) return undefined;
    if (entry.fingerprint !== fingerprint(request)) throw ticketIdReused(request.ticketId);
    checkOwner(request.caller, entry.record.owner, request.ticketId, 'resume');
    this.forget(request.ticketId);
    this.ctx.deadlines.delete(DeadlineKind.RestoredExpiry, request.ticketId);
    return entry;
  }

  /** Restored tickets whose game was ordered on `serverId` with this request id (and not retried yet). */
  placedIn(requestId: string, serverId: string): RestoredTicket[] {
    const ids = this.byCreation.get(requestId);
    if (!ids) return [];
    return [...ids].map((id) => this.waiting.get(id)!).filter((t) => t.record.placed?.serverId === serverId);
  }

  /** The retry was refused: the ticket waits for another until its time to live ends. */
  putBack(restored: RestoredTicket): void {
    const id = restored.record.request.ticketId;
    const endsAt = restored.record.createdAt + this.ttlMs;
    if (endsAt <= this.ctx.now()) {
      this.ctx.out.push({ kind: 'unstore', ticketId: id });
      return;
    }
    this.ctx.deadlines.set(DeadlineKind.RestoredExpiry, id, endsAt);
    this.waiting.set(id, restored);
    if (this.arrivals) {
      // Only tickets that were here when the index was built come back; anything else rebuilds it.
      const factory = this.arrivals.factoryOf.get(id);
      if (factory === undefined || !this.arrivals.byFactory.get(factory)?.add(restored.record.arrival)) this.arrivals = undefined;
    }
    const requestId = restored.record.placed?.requestId;
    if (requestId !== undefined) {
      let ids = this.byCreation.get(requestId);
      if (!ids) this.byCreation.set(requestId, (ids = new Set()));
      ids.add(id);
    }
  }

  /** Its time to live ended before its client came back. */
  expire(ticketId: string): void {
    if (!this.forget(ticketId)) return;
    if (!this.stopping) this.ctx.out.push({ kind: 'unstore', ticketId });
  }

  private forget(ticketId: string): boolean {
    const entry = this.waiting.get(ticketId);
    if (!entry) return false;
    this.waiting.delete(ticketId);
    const factory = this.arrivals?.factoryOf.get(ticketId);
    if (factory !== undefined) this.arrivals!.byFactory.get(factory)!.remove(entry.record.arrival);
    const requestId = entry.record.placed?.requestId;
    const ids = requestId === undefined ? undefined : this.byCreation.get(requestId);
    if (ids?.delete(ticketId) && ids.size === 0) this.byCreation.delete(requestId!);
    return true;
  }

  /** The process is going down: what the store holds stays as it is. */
  beginShutdown(): void {
    this.stopping = true;
  }

  /** Restored tickets of `factory` not yet retried, with an arrival before `arrival`: O(log n) once indexed. */
  aheadOf(resolve: (request: FindRequest) => string | undefined, factory: string, arrival: number): number {
    this.arrivals ??= this.indexArrivals(resolve);
    return this.arrivals.byFactory.get(factory)?.below(arrival) ?? 0;
  }

  private indexArrivals(resolve: (request: FindRequest) => string | undefined): NonNullable<RestoredTickets['arrivals']> {
    const factoryOf = new Map<string, string>();
    const grouped = new Map<string, number[]>();
    for (const [id, { record }] of this.waiting) {
      const factory = resolve(record.request);
      if (factory === undefined) continue;
      factoryOf.set(id, factory);
      let list = grouped.get(factory);
      if (!list) grouped.set(factory, (list = []));
      list.push(record.arrival);
    }
    const byFactory = new Map<string, PresenceCounts>();
    for (const [factory, arrivals] of grouped) {
      const counts = new PresenceCounts(arrivals);
      for (const arrival of arrivals) counts.add(arrival);
      byFactory.set(factory, counts);
    }
    return { byFactory, factoryOf };
  }
}

/** Restored tickets waiting for a factory no server serves yet, by factory. */
export class ParkedTickets {
  private readonly byFactory = new Map<string, Map<string, Ticket>>();

  add(ticket: Ticket): void {
    let parked = this.byFactory.get(ticket.factory);
    if (!parked) this.byFactory.set(ticket.factory, (parked = new Map()));
    parked.set(ticket.id, ticket);
  }

  remove(ticket: Ticket): void {
    const parked = this.byFactory.get(ticket.factory);
    if (parked?.delete(ticket.id) && parked.size === 0) this.byFactory.delete(ticket.factory);
  }

  count(factory: string): number {
    return this.byFactory.get(factory)?.size ?? 0;
  }

  /** Every ticket parked for `factory`, oldest arrival first, no longer parked. */
  takeAll(factory: string): Ticket[] {
    const parked = this.byFactory.get(factory);
    if (!parked) return [];
    this.byFactory.delete(factory);
    return [...parked.values()].sort((a, b) => a.arrival - b.arrival);
  }
}
