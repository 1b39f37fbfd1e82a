import { DemandApportion, type ApportionPolicy } from './apportion-policy.js';
import { FactoryTurns, type FactoryTurn } from './factory-turns.js';
import { TicketOrder, type OrderedTicket } from './ticket-order.js';

/** A request waiting for a slot, as the queue hands it back. */
export interface QueuedCreation<T> {
  readonly factory: string;
  readonly ticketId: string;
  readonly payload: T;
  /** Sequence number; push it back with this to keep the request's place: a creation taken back from a server returns at its original priority. */
  readonly priority: number;
}

interface QueueEntry<T> extends QueuedCreation<T>, OrderedTicket {
  readonly backlog: FactoryBacklog<T>;
}

class FactoryBacklog<T> implements FactoryTurn {
  heapIndex = -1;
  startTag = 0;
  finishTag = 0;
  headPriority = 0;
  headArrival = 0;
  readonly order = new TicketOrder<QueueEntry<T>>();
  constructor(readonly factory: string) {}

  isHead(e: OrderedTicket): boolean {
    return e.priority === this.headPriority && e.arrival === this.headArrival;
  }

  /** Caches the oldest request's key, for tie-breaks between factories. */
  refreshHead(): void {
    const head = this.order.first();
    if (head !== undefined) {
      this.headPriority = head.priority;
      this.headArrival = head.arrival;
    }
  }
}

export interface CreationQueueOptions {
  /** How freed slots are shared among factories; default DemandApportion (queued + recent requests). */
  readonly apportion?: ApportionPolicy;
}

/**
 * Game creations waiting for a slot: FIFO by sequence number within a factory, shared across
 * factories by the ApportionPolicy (apportion-policy.ts). Push, remove, position: O(log n) in
 * queued requests; pop: O(log n + log F), plus O(log F) per factory passed over for lack of
 * capacity, or O(|among|) when the caller names the factories that have capacity.
 */
export class CreationQueue<T> {
  readonly apportion: ApportionPolicy;
  /**
   * Queued requests by ticket id. A request that leaves keeps its key with the value undefined
   * (a tombstone) until tombstones outnumber queued requests, and then they are swept at once.
   * V8 leaves a deleted Map entry in its key's hash chain until the table is rehashed, which comes
   * only after about as many inserts as the map holds, so deleting and re-adding the same few ids
   * (a ticket re-queued after a failed claim, or a position update's remove + re-queue) made their
   * look-ups walk O(n / re-queued ids) dead entries: 90 ns per re-queue with 2^10 queued, 1.4 µs
   * with 2^16. Overwriting the value in place leaves the chain alone.
   */
  private readonly tickets = new Map<string, QueueEntry<T> | undefined>();
  private queued = 0;
  private tombstones = 0;
  private readonly backlogs = new Map<string, FactoryBacklog<T>>();
  private readonly turns = new FactoryTurns<FactoryBacklog<T>>();
  private nextSequence = 1;
  private arrivals = 0;

  constructor(options: CreationQueueOptions = {}) {
    this.apportion = options.apportion ?? new DemandApportion();
  }

  /**
   * Appends a request for a game of `factory`. `priority` is its original sequence number when
   * it is re-queued (so it goes back ahead of later arrivals) or restored from storage;
   * otherwise a new one is assigned. A ticket already queued is moved. Returns the sequence number.
   */
  push(factory: string, ticketId: string, payload: T, priority?: number): number {
    if (priority !== undefined && !Number.isFinite(priority)) {
      throw new RangeError(`priority must be a finite number, got ${priority}`);
    }
    this.remove(ticketId);
    const sequence = priority ?? this.nextSequence;
    if (sequence >= this.nextSequence) this.nextSequence = Math.floor(sequence) + 1;
    let backlog = this.backlogs.get(factory);
    if (backlog === undefined) {
      backlog = new FactoryBacklog<T>(factory);
      this.backlogs.set(factory, backlog);
    }
    const entry: QueueEntry<T> = { factory, ticketId, payload, priority: sequence, arrival: this.arrivals++, backlog };
    if (this.tickets.has(ticketId)) this.tombstones--;
    this.tickets.set(ticketId, entry);
    this.queued++;
    const wasEmpty = backlog.order.size === 0;
    backlog.order.insert(entry);
    if (wasEmpty) {
      backlog.refreshHead();
      this.turns.join(backlog);
    } else if (entry.priority < backlog.headPriority) {
      backlog.refreshHead();
      this.turns.headChanged(backlog);
    }
    return sequence;
  }

  remove(ticketId: string): boolean {
    const entry = this.tickets.get(ticketId);
    if (entry === undefined) return false;
    this.forget(ticketId);
    const backlog = entry.backlog;
    backlog.order.remove(entry);
    if (backlog.order.size === 0) this.turns.leave(backlog);
    else if (backlog.isHead(entry)) {
      backlog.refreshHead();
      this.turns.headChanged(backlog);
    }
    return true;
  }

  has(ticketId: string): boolean {
    return this.tickets.get(ticketId) !== undefined;
  }

  /** 1-based position of the ticket within its factory's queue. */
  position(ticketId: string): number | undefined {
    const entry = this.tickets.get(ticketId);
    return entry === undefined ? undefined : entry.backlog.order.rank(entry);
  }

  depth(factory?: string): number {
    if (factory === undefined) return this.queued;
    return this.backlogs.get(factory)?.order.size ?? 0;
  }

  /** Factories with queued requests (e.g. to schedule a timer at each one's nextStartAt). */
  *waitingFactories(): IterableIterator<string> {
    for (const [factory, backlog] of this.backlogs) if (backlog.order.size > 0) yield factory;
  }

  /**
   * The next request to serve among factories for which `hasCapacity(factory)` is true: FIFO
   * within a factory, fair across factories (apportion-policy.ts). Pass `among` (e.g. the
   * factories of the server that just freed a slot) to consider only those factories, so the
   * cost does not grow with factories that are waiting for other servers.
   */
  pop(
    hasCapacity: (factory: string) => boolean,
    now: number,
    among?: Iterable<string>,
  ): QueuedCreation<T> | undefined {
    const backlog = among === undefined ? this.turns.next(hasCapacity) : this.turns.best(this.backlogsOf(among), hasCapacity);
    if (backlog === undefined) return undefined;
    const weight = this.apportion.weight(backlog.factory, backlog.order.size, now);
    const entry = backlog.order.first()!;
    backlog.order.remove(entry);
    this.forget(entry.ticketId);
    backlog.refreshHead();
    this.turns.served(backlog, weight, backlog.order.size > 0);
    return { factory: entry.factory, ticketId: entry.ticketId, payload: entry.payload, priority: entry.priority };
  }

  /** The first k ticket ids of one factory, in order (for position updates): O(k + log n). */
  peek(factory: string, k: number): string[] {
    const backlog = this.backlogs.get(factory);
    if (backlog === undefined) return [];
    return backlog.order.take(k).map((e) => e.ticketId);
  }

  /** Tombstones a queued ticket's key (see `tickets`); sweeping is O(1) amortised per removal. */
  private forget(ticketId: string): void {
    this.tickets.set(ticketId, undefined);
    this.queued--;
    this.tombstones++;
    if (this.tombstones <= this.queued + 64) return;
    for (const [id, entry] of this.tickets) if (entry === undefined) this.tickets.delete(id);
    this.tombstones = 0;
  }

  private *backlogsOf(factories: Iterable<string>): IterableIterator<FactoryBacklog<T>> {
    for (const f of factories) {
      const backlog = this.backlogs.get(f);
      if (backlog !== undefined) yield backlog;
    }
  }
}
