import { EventEmitter } from 'node:events';
import type { Assignment } from '@gamefactory/protocol/v1/matchmaker';
import type { FindError } from './find-error.js';

/** Where a ticket stands while it waits. */
export interface Queued {
  readonly kind: 'queued';
  readonly factory: string;
  /** 1-based place in the factory's queue for a game-server slot; 0 while matching. */
  readonly position: number;
  readonly estimatedWaitMs: number;
}

/** The ticket's node failed; it is being sent again to `address` after `delayMs`. */
export interface Resuming {
  readonly kind: 'resuming';
  readonly address: string;
  readonly delayMs: number;
  /** Why: the status details of the failure. */
  readonly reason: string;
}

/** The last update: where to play. */
export interface Assigned {
  readonly kind: 'assignment';
  readonly assignment: Assignment;
}

export type TicketUpdate = Queued | Resuming | Assigned;

interface TicketEvents {
  queued: [Queued];
  resuming: [Resuming];
  assignment: [Assignment];
  /** The ticket ended without a game (never thrown: listen to it or await `assignment`). */
  failed: [FindError];
}

/** How a transport reports on one ticket; each ticket settles once, later reports are ignored. */
export interface TicketSink {
  readonly settled: boolean;
  queued(update: Queued): void;
  resuming(update: Resuming): void;
  assigned(assignment: Assignment): void;
  failed(error: FindError): void;
}

/**
 * One party's search for a game. Read it the way that suits the caller: `await ticket.assignment`,
 * `for await (const update of ticket)` (every update since the start, then the iteration ends at
 * the assignment or throws the FindError), or events (`queued`, `resuming`, `assignment`, `failed`).
 */
export class Ticket extends EventEmitter<TicketEvents> implements AsyncIterable<TicketUpdate> {
  /** Resolves with the assignment; rejects with a FindError. */
  readonly assignment: Promise<Assignment>;
  private readonly updates: TicketUpdate[] = [];
  private failure: FindError | undefined;
  private done = false;
  /** Iterators waiting for the next update (any number may read the same ticket). */
  private readonly wakers: (() => void)[] = [];
  private resolve!: (assignment: Assignment) => void;
  private reject!: (error: FindError) => void;

  private constructor(
    readonly id: string,
    private readonly cancelTicket: (ticket: Ticket) => Promise<boolean>,
  ) {
    super();
    this.assignment = new Promise<Assignment>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A caller that only listens to events must not crash the process with an unhandled rejection.
    this.assignment.catch(() => {});
  }

  /** A ticket and the sink its transport reports through (for transports; callers get tickets from Matchmaker.find). */
  static open(id: string, cancel: (ticket: Ticket) => Promise<boolean>): { ticket: Ticket; sink: TicketSink } {
    const ticket = new Ticket(id, cancel);
    const sink: TicketSink = {
      get settled() {
        return ticket.done;
      },
      queued: (update) => ticket.push(update, () => ticket.emit('queued', update)),
      resuming: (update) => ticket.push(update, () => ticket.emit('resuming', update)),
      assigned: (assignment) => {
        if (ticket.done) return;
        ticket.push({ kind: 'assignment', assignment }, () => ticket.emit('assignment', assignment));
        ticket.settle();
        ticket.resolve(assignment);
      },
      failed: (error) => {
        if (ticket.done) return;
        ticket.failure = error;
        ticket.settle();
        ticket.reject(error);
        ticket.emit('failed', error);
      },
    };
    return { ticket, sink };
  }

  /**
   * Withdraws the ticket; resolves true when it was still waiting (it then fails with CANCELLED),
   * false when it had already settled (an assignment that crossed the cancel stands).
   */
  cancel(): Promise<boolean> {
    return this.done ? Promise.resolve(false) : this.cancelTicket(this);
  }

  /** True once the ticket has its assignment or has failed. */
  get settled(): boolean {
    return this.done;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TicketUpdate> {
    for (let next = 0; ; ) {
      while (next < this.updates.length) yield this.updates[next++]!;
      if (this.failure) throw this.failure;
      if (this.done) return;
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    }
  }

  private push(update: TicketUpdate, emit: () => void): void {
    if (this.done) return;
    this.updates.push(update);
    emit();
    this.poke();
  }

  private settle(): void {
    this.done = true;
    this.poke();
  }

  private poke(): void {
    for (const wake of this.wakers.splice(0)) wake();
  }
}
