import type { AssignedObserved, EndedObserved, FindObserved, QueuedObserved } from './observation.js';
import type { TicketLedger, TicketRecord } from './ticket-ledger.js';
import { violation, type Violation } from './violation.js';

export interface TicketRuleOptions {
  /** Tickets' time to live: an 'expired' end earlier than this after the first find is a violation. */
  readonly ticketTtlMs?: number;
  /**
   * The position a ticket should have been told, when the feeder can say (undefined: not checked).
   * `waitingAhead` counts the tickets of its factory found before it that wait for a slot now.
   */
  readonly expectedPosition?: (queued: QueuedObserved, ticket: { factory: string; waitingAhead: number }) => number | undefined;
}

/**
 * The rules about tickets as their clients saw them: one live ticket per player and one game per
 * ticket, nothing told queued is lost, FIFO within a factory (and true positions, when the feeder
 * can say what they are).
 */
export class TicketRules {
  /** Per player, the accepted live ticket holding it. */
  private readonly holders = new Map<string, string>();
  /** Tickets told queued that have not ended yet (what finish() looks at). */
  private readonly queuedOpen = new Set<string>();

  constructor(
    private readonly ledger: TicketLedger,
    private readonly options: TicketRuleOptions,
  ) {}

  find(o: FindObserved): Violation[] {
    this.ledger.found(o.ticketId, o.at, o.factory, o.playerIds);
    return [];
  }

  queued(o: QueuedObserved): Violation[] {
    const ticket = this.ledger.found(o.ticketId, o.at);
    const out: Violation[] = [];
    if (!this.ledger.live(ticket)) {
      out.push(violation('no-lost', 'told queued after its end', o.at, { ticket: o.ticketId }, `ticket ${o.ticketId} was told queued after it was ${ticket.assignment ? 'assigned' : `ended (${ticket.ended!.reason})`}`));
      return out;
    }
    this.accept(ticket, o.at, out);
    this.queuedOpen.add(ticket.ticketId);
    if (o.position !== undefined && o.position > 0) {
      const expected = this.options.expectedPosition?.(o, { factory: ticket.factory, waitingAhead: this.ledger.waitingAhead(ticket) });
      if (expected !== undefined && expected !== o.position) {
        out.push(violation('fifo', 'wrong position', o.at, { ticket: o.ticketId, factory: ticket.factory, told: o.position, expected }, `ticket ${o.ticketId} was told position ${o.position} in ${ticket.factory}, its true position was ${expected}`));
      }
      this.ledger.waits(ticket);
    }
    return out;
  }

  assigned(o: AssignedObserved): Violation[] {
    const ticket = this.ledger.found(o.ticketId, o.at);
    const out: Violation[] = [];
    if (ticket.assignment) {
      const same = ticket.assignment.serverId === o.serverId && ticket.assignment.gameId === o.gameId;
      if (!same) {
        out.push(violation('one-live-ticket', 'assigned twice', o.at, { ticket: o.ticketId, first: `${ticket.assignment.serverId}/${ticket.assignment.gameId}`, second: `${o.serverId}/${o.gameId}` }, `ticket ${o.ticketId} was told two games: ${ticket.assignment.serverId}/${ticket.assignment.gameId}, then ${o.serverId}/${o.gameId}`));
      }
      return out;
    }
    if (ticket.ended) {
      out.push(violation('no-lost', 'assigned after its end', o.at, { ticket: o.ticketId }, `ticket ${o.ticketId} was told a game after it ended (${ticket.ended.reason})`));
      return out;
    }
    this.accept(ticket, o.at, out);
    if (ticket.waited) {
      // Every ticket of the factory found earlier and still waiting was overtaken by this one.
      for (const earlier of this.ledger.waitingBefore(ticket)) {
        out.push(violation('fifo', 'inversion', o.at, { factory: ticket.factory, assigned: o.ticketId, overtaken: earlier }, `in ${ticket.factory}, ticket ${o.ticketId} was assigned while ${earlier}, found before it, still waited`));
      }
    }
    ticket.assignment = { serverId: o.serverId, gameId: o.gameId, token: o.token, at: o.at };
    this.close(ticket);
    return out;
  }

  ended(o: EndedObserved): Violation[] {
    const ticket = this.ledger.found(o.ticketId, o.at);
    if (!this.ledger.live(ticket)) return [];
    const out: Violation[] = [];
    ticket.ended = { reason: o.reason, at: o.at };
    const wasQueued = this.queuedOpen.has(ticket.ticketId);
    this.close(ticket);
    if (!wasQueued) return out; // refused before it was taken: an answer, not a loss
    const ttl = this.options.ticketTtlMs;
    if (o.reason === 'cancelled' && ticket.cancelAskedAt === undefined) {
      out.push(violation('no-lost', 'cancelled unasked', o.at, { ticket: o.ticketId }, `ticket ${o.ticketId} was cancelled though its owner never asked: ${o.detail}`));
    } else if (o.reason === 'expired' && ttl !== undefined && o.at - ticket.firstFindAt < ttl) {
      out.push(violation('no-lost', 'expired early', o.at, { ticket: o.ticketId }, `ticket ${o.ticketId} expired ${o.at - ticket.firstFindAt} ms after its first find, before its TTL of ${ttl} ms`));
    } else if (o.reason !== 'cancelled' && o.reason !== 'expired') {
      out.push(violation('no-lost', `ended ${o.reason}`, o.at, { ticket: o.ticketId }, `ticket ${o.ticketId}, told queued, ended ${o.reason}: ${o.detail}`));
    }
    return out;
  }

  cancelAsked(ticketId: string, at: number): void {
    const ticket = this.ledger.found(ticketId, at);
    ticket.cancelAskedAt ??= at;
  }

  /** Liveness: every ticket told queued has ended by now. */
  finish(at: number): Violation[] {
    return [...this.queuedOpen].map((id) => violation('no-lost', 'silent', at, { ticket: id }, `ticket ${id} was told queued and never told an assignment or an end`));
  }

  /** The coordinator took the ticket: none of its players may be in another live ticket it took. */
  private accept(ticket: TicketRecord, at: number, out: Violation[]): void {
    if (ticket.accepted) return;
    ticket.accepted = true;
    for (const player of ticket.playerIds) {
      const holder = this.holders.get(player);
      if (holder !== undefined && holder !== ticket.ticketId) {
        out.push(violation('one-live-ticket', 'two live tickets', at, { player, ticket: ticket.ticketId, other: holder }, `player ${player} is in live tickets ${holder} and ${ticket.ticketId}`));
      }
      this.holders.set(player, ticket.ticketId);
    }
  }

  private close(ticket: TicketRecord): void {
    this.queuedOpen.delete(ticket.ticketId);
    this.ledger.leaves(ticket);
    for (const player of ticket.playerIds) if (this.holders.get(player) === ticket.ticketId) this.holders.delete(player);
  }
}
