// Node's EventEmitter, or in a browser a small one with the same methods (package.json `imports`).
import { EventEmitter } from '#events';
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

/**
 * A ready check: the factory proposes a game that every party must accept before it is created.
 * Answer with `Matchmaker.respondToMatch(ticket.id, matchId, accept)` within `expiresInMs`; sent
 * again as other players accept. If the match breaks, the ticket is `queued` again (it keeps its
 * place and wait) or fails (it declined, or did not answer in time).
 */
export interface Proposed {
  readonly kind: 'proposed';
  readonly matchId: string;
  readonly factory: string;
  readonly expiresInMs: number;
  readonly players: number;
  readonly acceptedPlayers: number;
}

/** The last update: where to play. */
export interface Assigned {
  readonly kind: 'assignment';
  readonly assignment: Assignment;
}

export type TicketUpdate = Queued | Proposed | Resuming | Assigned;

interface TicketEvents {
  queued: [Queued];
  proposed: [Proposed];
  resuming: [Resuming];
  assignment: [Assignment];
  /** The ticket ended without a game (never thrown: listen to it or await `assignment`). */
  failed: [FindError];
}

/** How a transport reports on one ticket; each ticket settles once, later reports are ignored. */
export interface TicketSink {
  readonly settled: boolean;
  queued(update: Queued): void;
  proposed(update: Proposed): void;
  resuming(update: Resuming): void;
  assigned(assignment: Assignment): void;
  failed(error: FindError): void;
}

/**
 * One party's search for a game. Read it the way that suits the caller: `await ticket.assignment`,
 * `for await (const update of ticket)` (every update since the start, then the iteration ends at
 * the assignment or throws the FindError), or events (`queued`, `proposed`, `resuming`, `assignment`, `failed`).
 *
 * A gateway holds thousands of these at once, each until its game is found, so a ticket makes
 * only what its reader asks for: the promise on the first read of `assignment`, the list of
 * updates at the first one before the assignment, the wakers for iterators that wait.
 */
export class Ticket extends EventEmitter<TicketEvents> implements AsyncIterable<TicketUpdate> {
  /** Updates before the assignment, for iterators (any number may read the same ticket). */
  private updates: TicketUpdate[] | undefined;
  private result: Assignment | undefined;
  private failure: FindError | undefined;
  private done = false;
  /** Iterators waiting for the next update. */
  private wakers: (() => void)[] | undefined;
  private promise: Promise<Assignment> | undefined;
  private resolve: ((assignment: Assignment) => void) | undefined;
  private reject: ((error: FindError) => void) | undefined;

  private constructor(
    readonly id: string,
    private readonly cancelTicket: (ticket: Ticket) => Promise<boolean>,
  ) {
    super();
  }

  /** A ticket and the sink its transport reports through (for transports; callers get tickets from Matchmaker.find). */
  static open(id: string, cancel: (ticket: Ticket) => Promise<boolean>): { ticket: Ticket; sink: TicketSink } {
    const ticket = new Ticket(id, cancel);
    return { ticket, sink: new Ticket.Sink(ticket) };
  }

  /** The transport's side of a ticket: one object with methods, not a closure per kind of report. */
  private static readonly Sink = class implements TicketSink {
    constructor(private readonly ticket: Ticket) {}

    get settled(): boolean {
      return this.ticket.done;
    }

    queued(update: Queued): void {
      this.ticket.waited(update);
    }

    proposed(update: Proposed): void {
      this.ticket.waited(update);
    }

    resuming(update: Resuming): void {
      this.ticket.waited(update);
    }

    assigned(assignment: Assignment): void {
      this.ticket.assignedTo(assignment);
    }

    failed(error: FindError): void {
      this.ticket.failedWith(error);
    }
  };

  /** Resolves with the assignment; rejects with a FindError (never an unhandled rejection when nobody awaits it). */
  get assignment(): Promise<Assignment> {
    if (this.promise) return this.promise;
    if (this.result) return (this.promise = Promise.resolve(this.result));
    if (this.failure) this.promise = Promise.reject(this.failure);
    else {
      this.promise = new Promise<Assignment>((resolve, reject) => {
        this.resolve = resolve;
        this.reject = reject;
      });
    }
    // A caller that only listens to events must not crash the process with an unhandled rejection.
    this.promise.catch(() => {});
    return this.promise;
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
      const updates = this.updates;
      while (updates !== undefined && next < updates.length) yield updates[next++]!;
      if (this.failure) throw this.failure;
      if (this.result) {
        yield { kind: 'assignment', assignment: this.result };
        return;
      }
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wakers ??= []).push(resolve));
    }
  }

  private waited(update: Queued | Proposed | Resuming): void {
    if (this.done) return;
    (this.updates ??= []).push(update);
    if (update.kind === 'queued') this.emit('queued', update);
    else if (update.kind === 'proposed') this.emit('proposed', update);
    else this.emit('resuming', update);
    this.poke();
  }

  private assignedTo(assignment: Assignment): void {
    if (this.done) return;
    this.result = assignment;
    this.emit('assignment', assignment);
    this.done = true;
    this.poke();
    this.resolve?.(assignment);
  }

  private failedWith(error: FindError): void {
    if (this.done) return;
    this.failure = error;
    this.done = true;
    this.poke();
    this.reject?.(error);
    this.emit('failed', error);
  }

  private poke(): void {
    const wakers = this.wakers;
    if (wakers === undefined) return;
    this.wakers = undefined;
    for (const wake of wakers) wake();
  }
}
