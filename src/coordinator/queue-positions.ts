import { DecayingRate, estimateWaitMs, type PlacementPort } from '../placement/index.js';
import type { CoreDeps } from './ports.js';
import type { Creation } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';
import type { TicketBook } from './tickets/ticket-book.js';

/** How many queue positions to refresh after the queue moves. */
export const POSITION_UPDATE_WINDOW = 64;
const POSITION_REFRESH_MS = 1000;
/** Queue positions refreshed each period, per factory: the head moves; the tail hears when it nears. */
const POSITION_REFRESH_WINDOW = 1000;

/**
 * What queued clients are told of their place in line (docs/architecture.md "Restarts": when they join it,
 * whenever its head moves, and every second for the first 1000 of each factory), with a wait
 * estimate from the recent rate of game starts. Reads the line through the placement port and
 * the creations through `queuedCreation`; moves tickets only through the TicketBook.
 */
export class QueuePositions {
  /** Recent game starts, behind the wait estimates shown to queued clients. */
  private readonly starts = new DecayingRate(10_000);
  private cancelRefresh: (() => void) | undefined;

  constructor(
    private readonly deps: CoreDeps,
    private readonly placement: PlacementPort,
    private readonly book: TicketBook,
    /** The creation with this request id, if it is waiting in line. */
    private readonly queuedCreation: (requestId: string) => Creation | undefined,
    /** Factories with creations waiting in line now. */
    private readonly waitingFactories: () => Iterable<string>,
    /**
     * Tickets restored after a restart that will be ahead of this one once their clients retry:
     * counted in every position reported, so a retried ticket's first answer is already its
     * restored place (issue 10, defect 2).
     */
    private readonly restoredAhead: (ticket: Ticket) => number,
  ) {}

  /** A game started: the rate behind the wait estimates. */
  gameStarted(): void {
    this.starts.record(this.deps.now());
  }

  /** The ticket's creation joined the line at `position`: tell it, and keep the line informed. */
  joined(ticketId: string, requestId: string, position: number): void {
    this.tell(this.book.queued(ticketId, requestId, position), position);
    this.scheduleRefresh();
  }

  /** Tells a ticket where it stands, when its creation waits in line (asks the line first). */
  report(ticket: Ticket, creation: Creation | undefined): void {
    if (creation?.stage !== 'queued' || !ticket.listener) return;
    this.call(
      this.placement.position(creation.requestId).then((position) => {
        const now = this.book.get(ticket.id);
        if (position === undefined || now?.state.kind !== 'placing' || now.state.creationId !== creation.requestId) return;
        this.tell(this.book.queued(ticket.id, creation.requestId, position), position);
      }),
    );
  }

  /** The first `count` places of `factory`'s line hear where they stand. */
  refresh(factory: string, count = POSITION_UPDATE_WINDOW): void {
    this.call(
      this.placement.head(factory, count).then((requestIds) => {
        requestIds.forEach((requestId, i) => {
          const creation = this.queuedCreation(requestId);
          if (!creation) return;
          for (const ticketId of creation.ticketIds) {
            if (this.book.get(ticketId)) this.tell(this.book.queued(ticketId, requestId, i + 1), i + 1);
          }
        });
      }),
    );
  }

  /** Estimated wait for whoever is `position`th in line (a retry hint); 0 with no recent starts. */
  estimatedWaitMs(position: number): number {
    return estimateWaitMs(position, this.starts.perSecond(this.deps.now())) ?? 0;
  }

  private tell(ticket: Ticket, queuePosition: number): void {
    if (!ticket.listener) return;
    const position = queuePosition + this.restoredAhead(ticket);
    // 0 when nothing has started lately: no estimate rather than a made-up one.
    ticket.listener.update({ kind: 'queued', factory: ticket.factory, position, estimatedWaitMs: this.estimatedWaitMs(position) });
  }

  private scheduleRefresh(): void {
    if (this.cancelRefresh) return;
    this.cancelRefresh = this.deps.timers.set(() => {
      this.cancelRefresh = undefined;
      let waiting = false;
      for (const factory of this.waitingFactories()) {
        waiting = true;
        this.refresh(factory, POSITION_REFRESH_WINDOW);
      }
      if (waiting) this.scheduleRefresh();
    }, POSITION_REFRESH_MS);
  }

  /** Logs a failed port call; the caller has nothing to wait for. */
  private call(promise: Promise<unknown>): void {
    promise.catch((error: unknown) => this.deps.log.warn({ err: error }, 'placement call failed'));
  }
}
