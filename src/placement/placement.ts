import { DemandApportion } from './apportion-policy.js';
import { CreationQueue } from './creation-queue.js';
import { SlotLedger, type ServerCapacity, type ServerPolicy } from './slot-ledger.js';

/** The outcome of asking for a slot: a server now, or a place in line. */
export type Placed = { readonly serverId: string } | { readonly position: number };

export interface Drained {
  /** Requests taken from the queue, each with the slot claimed for it. */
  readonly placed: readonly { readonly requestId: string; readonly factory: string; readonly serverId: string }[];
  /** When a rate-limited server gets its next start token, if the queue waits only for that. */
  readonly retryAt: number | undefined;
}

/**
 * Slots and the creation queue (Battle.net talk, "Queueing and Distribution", 2nd attempt): a
 * SlotLedger of what servers advertise and a CreationQueue of what waits, apportioned across
 * factories by demand. It is state the core owns, so every call answers at once: a sharded
 * cluster gives each owner the slots granted to its shard rather than a shared lock to ask.
 * Requests are opaque ids; what they carry (tickets, seats) stays with the caller. Time is an
 * argument, so the same calls give the same answers.
 */
export class Placement {
  private readonly ledger: SlotLedger;
  private readonly demand = new DemandApportion();
  /** Each queued request's payload: the server it last failed on, if it did (see `place`). */
  private readonly queue = new CreationQueue<string | undefined>({ apportion: this.demand });

  constructor(policy: ServerPolicy) {
    this.ledger = new SlotLedger(policy);
  }

  addServer(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number, now: number, inFlight = 0, sameNode = false): void {
    this.ledger.addServer(serverId, factories, capacity, runningGames, now, inFlight, sameNode);
  }

  /** A connected server serves more factories (made by a config reload). */
  addFactories(serverId: string, factories: readonly string[]): void {
    this.ledger.addFactories(serverId, factories);
  }

  removeServer(serverId: string): void {
    this.ledger.removeServer(serverId);
  }

  setCapacity(serverId: string, capacity: ServerCapacity, now: number): void {
    this.ledger.setCapacity(serverId, capacity, now);
  }

  gameEnded(serverId: string): void {
    this.ledger.gameEnded(serverId);
  }

  /** A game runs on the server that no claim here made (ordered by an earlier process or owner). */
  gameStarted(serverId: string): void {
    this.ledger.gameStarted(serverId);
  }

  /** A FindGame arrived for `factory`: demand, for apportioning slots among factories. */
  recordDemand(factory: string, now: number): void {
    this.demand.recordRequest(factory, now);
  }

  /**
   * Claims a slot for a new game of `factory` at once when nobody of that factory waits and a
   * server is free; otherwise queues the request at `priority` (smaller is served first; a
   * request taken back keeps its original one). `failedOn`: the server a request taken back
   * failed on; another server with a free slot gets it first, now or when it leaves the queue (a
   * server that accepts creations and never confirms would otherwise get the same one back, under
   * the fill policy, until its breaker rests it: three creation timeouts).
   */
  place(factory: string, requestId: string, priority: number, now: number, failedOn?: string): Placed {
    if (this.queue.depth(factory) === 0) {
      const serverId = this.ledger.claim(factory, now, failedOn);
      if (serverId !== undefined) return { serverId };
    }
    this.queue.push(factory, requestId, failedOn, priority);
    return { position: this.queue.position(requestId)! };
  }

  /** The server confirmed the game: its in-flight slot becomes a running game. */
  confirm(serverId: string): void {
    this.ledger.confirm(serverId);
  }

  /** An in-flight creation failed or timed out: the slot is free again. */
  release(serverId: string): void {
    this.ledger.release(serverId);
  }

  /** Takes a queued request out of line (its tickets left). False when it was not queued. */
  withdraw(requestId: string): boolean {
    return this.queue.remove(requestId);
  }

  /** Serves the queue with whatever slots are free now, fairly across factories. */
  drain(now: number): Drained {
    const placed: { requestId: string; factory: string; serverId: string }[] = [];
    // Factories the queue passed over for lack of a claimable slot: if only a start token is
    // missing, the caller should drain again when the next one comes.
    const passedOver = new Set<string>();
    for (;;) {
      const next = this.queue.pop((factory) => {
        const ok = this.ledger.canClaim(factory, now);
        if (!ok) passedOver.add(factory);
        return ok;
      }, now);
      if (!next) break;
      const serverId = this.ledger.claim(next.factory, now, next.payload)!;
      placed.push({ requestId: next.ticketId, factory: next.factory, serverId });
    }
    let retryAt: number | undefined;
    for (const factory of passedOver) {
      const at = this.ledger.nextStartAt(factory, now);
      if (at !== undefined && at > now) retryAt = Math.min(retryAt ?? at, at);
    }
    return { placed, retryAt };
  }

  /** 1-based place in its factory's line, or undefined when not queued. */
  position(requestId: string): number | undefined {
    return this.queue.position(requestId);
  }

  /** The first `count` queued requests of a factory, in order. */
  head(factory: string, count: number): string[] {
    return this.queue.peek(factory, count);
  }

  depth(factory?: string): number {
    return this.queue.depth(factory);
  }

  freeSlots(factory?: string): number {
    return this.ledger.freeSlots(factory);
  }
}
