import type { FactoryRegistry } from '../factories/factory-registry.js';
import { DecayingRate, estimateWaitMs } from '../placement/index.js';
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
 * What queued clients are told of their place in line (when they join it, whenever its head
 * moves, and every second for the first 1000 of each factory), with a wait estimate from the
 * recent rate of game starts. Tickets restored after a restart and not yet retried count ahead
 * of later arrivals, so a retried ticket's first answer is already its restored place.
 */
export class QueuePositions {
  /** Recent game starts, behind the wait estimates shown to queued clients. */
  private readonly starts = new DecayingRate(10_000);

  constructor(
    private readonly ctx: CoreContext,
    private readonly book: TicketBook,
    private readonly restored: RestoredTickets,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
  ) {}

  /** A game started: the rate behind the wait estimates. */
  gameStarted(): void {
    this.starts.record(this.ctx.now());
  }

  /** The ticket's creation waits at `position` in its factory's line: the ticket and its client hear it. */
  tell(ticketId: string, creationId: string, position: number): void {
    const ticket = this.book.queued(ticketId, creationId, position);
    if (!ticket.listener) return;
    const shown = position + this.restoredAhead(ticket);
    // 0 when nothing has started lately: no estimate rather than a made-up one.
    this.ctx.out.update(ticket.listener, ticket.id, { kind: 'queued', factory: ticket.factory, position: shown, estimatedWaitMs: this.estimatedWaitMs(shown) });
  }

  /** Estimated wait for whoever is `position`th in line (a retry hint); 0 with no recent starts. */
  estimatedWaitMs(position: number): number {
    return estimateWaitMs(position, this.starts.perSecond(this.ctx.now())) ?? 0;
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
