import { MatchmakingError } from '../../errors/index.js';
import { TicketOwnership, type TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { Principal } from '../../security/tokens/principal.js';
import type { FindRequest } from '../messages.js';
import type { CoreDeps, TicketRecord } from '../ports.js';
import { fingerprint, type Ticket } from './ticket.js';

export function ticketIdReused(ticketId: string): MatchmakingError {
  return new MatchmakingError('ALREADY_EXISTS', `ticket_id: "${ticketId}" is already used by a different request; choose a new ticket id`);
}

/** Only a ticket's owner may cancel or resume it (issue 14); a ticket without an owner, or a trusted caller, passes. */
export function checkOwner(caller: Principal | undefined, owner: TicketOwner | undefined, ticketId: string, action: 'cancel' | 'resume'): void {
  if (!caller || !owner) return;
  if (!TicketOwnership.mayActOn(caller, owner)) {
    throw new MatchmakingError('PERMISSION_DENIED', `ticket_id "${ticketId.slice(0, 128)}": only its owner may ${action} it (you are ${caller.role} "${caller.subject}")`);
  }
}

export interface RestoredTicket {
  readonly record: TicketRecord;
  readonly fingerprint: string;
}

/**
 * Tickets that survived a restart, until their client retries (then they open with their
 * original arrival) or their time to live ends (then they leave the store).
 */
export class RestoredTickets {
  private readonly waiting = new Map<string, RestoredTicket & { cancelExpiry: () => void }>();

  constructor(
    private readonly deps: CoreDeps,
    private readonly ttlMs: number,
    records: readonly TicketRecord[],
    private readonly stopping: () => boolean,
  ) {
    for (const record of records) {
      const observed = deps.cluster.arrivals.observe(record.arrival);
      if (observed instanceof Promise) observed.catch((error: unknown) => deps.log.warn({ err: error }, 'arrival sequence unreachable'));
      this.putBack({ record, fingerprint: fingerprint(record.request) });
    }
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
    this.waiting.delete(request.ticketId);
    entry.cancelExpiry();
    return entry;
  }

  /** The retry was refused: the ticket waits for another until its time to live ends. */
  putBack(restored: RestoredTicket): void {
    const id = restored.record.request.ticketId;
    const left = restored.record.createdAt + this.ttlMs - this.deps.now();
    if (left <= 0) {
      this.deps.store?.remove(id);
      return;
    }
    const cancelExpiry = this.deps.timers.set(() => {
      this.waiting.delete(id);
      if (!this.stopping()) this.deps.store?.remove(id);
    }, left);
    this.waiting.set(id, { ...restored, cancelExpiry });
  }

  /** Restored tickets of `factory` not yet retried, with an arrival before `arrival`. */
  aheadOf(resolve: (request: FindRequest) => string | undefined, factory: string, arrival: number): number {
    let n = 0;
    for (const { record } of this.waiting.values()) {
      if (record.arrival < arrival && resolve(record.request) === factory) n++;
    }
    return n;
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
