import type { FactoryRegistry } from '../factories/factory-registry.js';
import { LineDepartures, worthTelling, type ToldQueued } from '../placement/index.js';
import type { CoreContext } from './core-context.js';
import { DeadlineKind } from './deadlines.js';
import type { FactoryRuntime } from './factory-runtime.js';
import type { FindRequest } from './messages.js';
import type { RestoredTickets } from './tickets/restored-tickets.js';
import type { Ticket } from './tickets/ticket.js';
import type { TicketBook } from './tickets/ticket-book.js';

/** How many queue positions to refresh after the queue moves. */
export const POSITION_UPDATE_WINDOW = 64;
const POSITION_REFRESH_MS = 1000;
/** Queue positions refreshed each period, per factory: the head moves; the tail hears when it nears. */
export const POSITION_REFRESH_WINDOW = 1000;

/**
 * What queued clients are told of their place in line (when they join it; then, looked at whenever
 * its head moves and every second for the first 1000 of each factory, only when their place or
 * estimate changed enough, at most once every QUEUED_UPDATE_MIN_INTERVAL_MS), with a wait
 * estimate from how fast the factory's line has been moving. Tickets restored after a restart and
 * not yet retried count ahead of later arrivals, so a retried ticket's first answer is already its
 * restored place.
 */
export class QueuePositions {
  /** Each factory's recent departures from its line, behind the wait estimates. */
  private readonly lines = new Map<string, LineDepartures>();
  /**
   * What each queued ticket's listener last heard. Keyed by the book's ticket object, so it goes
   * when the ticket does; a new listener (a resumed stream) hears at once.
   */
  private readonly told = new WeakMap<Ticket, ToldQueued & { readonly listener: unknown }>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly book: TicketBook,
    private readonly restored: RestoredTickets,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
  ) {}

  /** A creation of `factory` left its line for a server: the rate behind the wait estimates. */
  departed(factory: string): void {
    let line = this.lines.get(factory);
    if (!line) this.lines.set(factory, (line = new LineDepartures()));
    line.departed(this.ctx.now());
  }

  /** The factory's line is empty: what it remembers would only age. */
  emptied(factory: string): void {
    this.lines.delete(factory);
  }

  /** The ticket's creation waits at `position` in its factory's line: the ticket and its client hear it (`always`: even unchanged, to a call that has heard nothing yet). */
  tell(ticketId: string, creationId: string, position: number, always = false): void {
    const ticket = this.book.queued(ticketId, creationId, position);
    if (!ticket.listener) return;
    const shown = position + this.restoredAhead(ticket);
    const estimatedWaitMs = this.estimatedWaitMs(ticket.factory, shown);
    const now = this.ctx.now();
    const last = this.told.get(ticket);
    if (!always && last?.listener === ticket.listener && !worthTelling(last, shown, estimatedWaitMs, now)) return;
    this.told.set(ticket, { position: shown, estimatedWaitMs, at: now, listener: ticket.listener });
    this.ctx.out.update(ticket.listener, ticket.id, { kind: 'queued', factory: ticket.factory, position: shown, estimatedWaitMs });
  }

  /** Estimated wait for whoever is `position`th in `factory`'s line; undefined when the line cannot tell. */
  estimatedWaitMs(factory: string, position: number): number | undefined {
    return this.lines.get(factory)?.estimateMs(position, this.ctx.now());
  }

  /** Someone waits in line: the periodic refresh is due in a second, unless it already is. */
  keepInformed(): void {
    if (!this.ctx.deadlines.has(DeadlineKind.PositionRefresh, '')) {
      this.ctx.deadlines.set(DeadlineKind.PositionRefresh, '', this.ctx.now() + POSITION_REFRESH_MS);
    }
  }

  private restoredAhead(ticket: Ticket): number {
    if (this.restored.size === 0) return 0;
    return this.restored.aheadOf((request) => this.factoryOf(request), ticket.factory, ticket.arrival);
  }

  private factoryOf(request: FindRequest): string | undefined {
    try {
      return this.registry.resolve(request.template, request.partition);
    } catch {
      return undefined;
    }
  }
}
