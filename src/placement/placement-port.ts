import type { ServerCapacity } from './slot-ledger.js';

/** The outcome of asking for a slot: a server now, or a place in line. */
export type Placement = { readonly serverId: string } | { readonly position: number };

export interface Drained {
  /** Requests taken from the queue, each with the slot claimed for it. */
  readonly placed: readonly { readonly requestId: string; readonly factory: string; readonly serverId: string }[];
  /** When a rate-limited server gets its next start token, if the queue waits only for that. */
  readonly retryAt: number | undefined;
}

/**
 * Slots and the creation queue, as the coordinator sees them: a port, asynchronous, and free of
 * any assumption that its state lives in this process (Battle.net talk, "2nd attempt": the queue
 * can be distributed across hardware). The embedded deployment uses InProcessPlacement; a
 * shared store lets several coordinators share slots and queues behind the same calls.
 *
 * Requests are opaque ids; what they carry (tickets, seats) stays with the coordinator that made
 * them. Calls from one coordinator take effect in the order they are made.
 */
export interface PlacementPort {
  addServer(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number): Promise<void>;
  removeServer(serverId: string): Promise<void>;
  setCapacity(serverId: string, capacity: ServerCapacity): Promise<void>;
  gameEnded(serverId: string): Promise<void>;
  /** A FindGame arrived for `factory`: demand, for apportioning slots among factories. */
  recordDemand(factory: string): Promise<void>;
  /**
   * Claims a slot for a new game of `factory` at once when nobody of that factory waits and a
   * server is free; otherwise queues the request at `priority` (smaller is served first; a
   * request taken back keeps its original one).
   */
  place(factory: string, requestId: string, priority: number): Promise<Placement>;
  /** The server confirmed the game: its in-flight slot becomes a running game. */
  confirm(serverId: string): Promise<void>;
  /** An in-flight creation failed or timed out: the slot is free again. */
  release(serverId: string): Promise<void>;
  /** Takes a queued request out of line (its tickets left). False when it was not queued. */
  withdraw(requestId: string): Promise<boolean>;
  /** Serves the queue with whatever slots are free now, fairly across factories. */
  drain(): Promise<Drained>;
  /** 1-based place in its factory's line, or undefined when not queued. */
  position(requestId: string): Promise<number | undefined>;
  /** The first `count` queued requests of a factory, in order. */
  head(factory: string, count: number): Promise<string[]>;
  depth(factory?: string): Promise<number>;
  freeSlots(factory?: string): Promise<number>;
}
