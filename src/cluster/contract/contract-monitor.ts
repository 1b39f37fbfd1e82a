import { CallRules } from './call-rules.js';
import type { Observation } from './observation.js';
import { SeatRules } from './seat-rules.js';
import { ShardRules, type ShardRuleOptions } from './shard-rules.js';
import { TicketLedger } from './ticket-ledger.js';
import { TicketRules, type TicketRuleOptions } from './ticket-rules.js';
import type { Violation } from './violation.js';

export interface ContractOptions extends TicketRuleOptions, ShardRuleOptions {}

/**
 * The cluster contract as code: fed what clients and game servers saw, in time order, it answers
 * with the violations each observation reveals (safety at once, deadlines as time passes) and,
 * at `finish`, what never happened (liveness). Each observation costs O(1) or O(log n) in the
 * history, apart from what it reports (k inversions, k tickets orphaned by a death); nothing is
 * rescanned. Pure: no clock, no I/O; the deterministic simulator and the real-process chaos runs
 * feed the same code.
 */
export class ContractMonitor {
  private readonly ledger = new TicketLedger();
  private readonly tickets: TicketRules;
  private readonly seats: SeatRules;
  private readonly calls = new CallRules();
  private readonly shards: ShardRules;
  private now = Number.NEGATIVE_INFINITY;
  private finished = false;

  constructor(options: ContractOptions = {}) {
    this.tickets = new TicketRules(this.ledger, options);
    this.seats = new SeatRules(this.ledger);
    this.shards = new ShardRules(this.ledger, options);
  }

  /** How long after the client was told each late seat reached its server (each also a 'told without seat'). */
  get lateSeatLagsMs(): readonly number[] {
    return this.seats.lateSeatLagsMs;
  }

  observe(o: Observation): Violation[] {
    if (this.finished) throw new Error('the contract monitor was already finished');
    if (o.at < this.now) throw new RangeError(`observations must come in time order: ${o.kind} at ${o.at} after ${this.now}`);
    this.now = o.at;
    // Deadlines that passed before this observation first: an answer at the deadline is in time.
    const out = [...this.calls.advance(o.at), ...this.shards.advance(o.at)];
    out.push(...this.apply(o));
    return out;
  }

  /** Liveness at the end of a history: deadlines passed by `at`, tickets never ended, seats never delivered. */
  finish(at: number): Violation[] {
    if (at < this.now) throw new RangeError(`finish at ${at} is before the last observation at ${this.now}`);
    const out = [...this.calls.advance(at), ...this.shards.advance(at), ...this.tickets.finish(at), ...this.seats.finish(at)];
    this.finished = true;
    return out;
  }

  private apply(o: Observation): Violation[] {
    switch (o.kind) {
      case 'find':
        this.shards.found(o.factory);
        return this.tickets.find(o);
      case 'queued':
        return this.tickets.queued(o);
      case 'assigned': {
        const live = this.isLive(o.ticketId);
        // The seat check reads the ticket's players before the ticket rules close it.
        const out = [...this.seats.assigned(o), ...this.tickets.assigned(o)];
        if (live) out.push(...this.shards.settled(o.ticketId, o.at, true));
        return out;
      }
      case 'ended': {
        const out = this.tickets.ended(o);
        this.shards.settled(o.ticketId, o.at, false);
        return out;
      }
      case 'cancel-asked':
        this.tickets.cancelAsked(o.ticketId, o.at);
        return [];
      case 'call-started':
        return this.calls.started(o);
      case 'call-answered':
        return this.calls.answered(o);
      case 'seat':
        return this.seats.seat(o);
      case 'seat-freed':
        return this.seats.seatFreed(o);
      case 'game':
        return this.seats.game(o);
      case 'game-ended':
        return this.seats.gameEnded(o);
      case 'slots':
        return this.seats.slots(o);
      case 'fence':
        return this.shards.fence(o);
      case 'node-died':
        return this.shards.nodeDied(o);
      case 'capacity':
        this.shards.capacity(o.factory, o.at);
        return [];
    }
  }

  private isLive(ticketId: string): boolean {
    const ticket = this.ledger.get(ticketId);
    return ticket !== undefined && this.ledger.live(ticket);
  }
}
