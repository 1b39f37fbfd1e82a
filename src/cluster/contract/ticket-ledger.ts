import type { EndReason } from './observation.js';
import { RankIndex } from './rank-index.js';

/** What the contract knows of one ticket, from its clients' observations. */
export interface TicketRecord {
  readonly ticketId: string;
  playerIds: readonly string[];
  factory: string;
  readonly firstFindAt: number;
  /** Its place in its factory's first-find order (0, 1, 2...). */
  seq: number;
  /** Told queued or assigned: the coordinator took it. */
  accepted: boolean;
  /** Told a place (position > 0) in its factory's slot queue. */
  waited: boolean;
  cancelAskedAt?: number;
  assignment?: { readonly serverId: string; readonly gameId: string; readonly token: string; readonly at: number };
  ended?: { readonly reason: EndReason; readonly at: number };
}

/** One factory's tickets in first-find order, and which of them wait for a slot now. */
interface FactoryOrder {
  readonly bySeq: string[];
  readonly waiting: RankIndex;
  /** Tickets live in it now (found, not assigned nor ended). */
  readonly live: Set<string>;
}

/**
 * The tickets the clients saw, shared by the rules: each ticket's players, factory and first-find
 * order, and per factory its live tickets and those waiting for a slot (O(1) or O(log n) each).
 */
export class TicketLedger {
  private readonly tickets = new Map<string, TicketRecord>();
  private readonly factories = new Map<string, FactoryOrder>();

  get(ticketId: string): TicketRecord | undefined {
    return this.tickets.get(ticketId);
  }

  /** The ticket, made at its first find (or at whatever is first heard of it). */
  found(ticketId: string, at: number, factory = '', playerIds: readonly string[] = []): TicketRecord {
    let ticket = this.tickets.get(ticketId);
    if (!ticket) {
      ticket = { ticketId, playerIds, factory, firstFindAt: at, seq: -1, accepted: false, waited: false };
      this.tickets.set(ticketId, ticket);
      if (factory !== '') this.enter(ticket);
    } else if (ticket.factory === '' && factory !== '') {
      ticket.factory = factory;
      ticket.playerIds = playerIds;
      this.enter(ticket);
    }
    return ticket;
  }

  live(ticket: TicketRecord): boolean {
    return ticket.assignment === undefined && ticket.ended === undefined;
  }

  /** Marks a ticket told a place in its factory's slot queue. */
  waits(ticket: TicketRecord): void {
    if (ticket.waited || !this.live(ticket) || ticket.seq < 0) return;
    ticket.waited = true;
    this.factories.get(ticket.factory)!.waiting.add(ticket.seq);
  }

  /** The ticket is assigned or ended: it leaves its factory's live and waiting sets. */
  leaves(ticket: TicketRecord): void {
    const order = this.factories.get(ticket.factory);
    if (!order) return;
    order.live.delete(ticket.ticketId);
    if (ticket.seq >= 0) order.waiting.delete(ticket.seq);
  }

  /** How many tickets of its factory found before it wait for a slot now. */
  waitingAhead(ticket: TicketRecord): number {
    return ticket.seq < 0 ? 0 : this.factories.get(ticket.factory)!.waiting.below(ticket.seq);
  }

  /** The tickets of its factory found before it that wait now, earliest first (O(k log n) for k of them). */
  *waitingBefore(ticket: TicketRecord): Generator<string> {
    if (ticket.seq < 0) return;
    const order = this.factories.get(ticket.factory)!;
    const ahead = order.waiting.below(ticket.seq);
    for (let k = 1; k <= ahead; k++) yield order.bySeq[order.waiting.kth(k)!]!;
  }

  /** The live tickets of a factory now. */
  liveIn(factory: string): ReadonlySet<string> {
    return this.factories.get(factory)?.live ?? new Set();
  }

  private enter(ticket: TicketRecord): void {
    let order = this.factories.get(ticket.factory);
    if (!order) {
      order = { bySeq: [], waiting: new RankIndex(), live: new Set() };
      this.factories.set(ticket.factory, order);
    }
    ticket.seq = order.bySeq.length;
    order.bySeq.push(ticket.ticketId);
    if (this.live(ticket)) order.live.add(ticket.ticketId);
  }
}
