import type { FindRequest } from './messages.js';
import type { TicketOwner } from '../security/roles/ticket-ownership.js';
import type { SliceSolver } from '../competitive/index.js';
import type { RatingStore } from '../ratings/rating-store.js';

/** What the coordinator core needs from its surroundings, injected so tests control it. */

export interface Timers {
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  set(fn: () => void, ms: number): () => void;
}

export interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export type { FindOutcome } from './edges/events.js';
import type { EventHub } from './edges/events.js';
import type { ClusterPorts } from '../cluster/ports.js';

/** What is kept of a waiting ticket so a restarted coordinator gives it its place back. */
export interface TicketRecord {
  readonly request: FindRequest;
  readonly createdAt: number;
  /** Global arrival order: the ticket's priority in the creation queue. */
  readonly arrival: number;
  /** Who may cancel or resume it (issue 14); absent for tickets opened by a trusted caller. */
  readonly owner?: TicketOwner;
}

/** Durable waiting tickets (LMDB in the embedded deployment). Writes are fire-and-forget. */
export interface TicketStore {
  save(record: TicketRecord): void;
  remove(ticketId: string): void;
}

export interface CoordinatorDeps {
  readonly now: () => number;
  readonly timers: Timers;
  /** Fresh unique ids for requests and reservation tokens. */
  readonly newId: () => string;
  readonly random: () => number;
  readonly log: Log;
  /** Cluster-wide state (arrival order, player claims, order delivery); in process when absent. */
  readonly cluster?: ClusterPorts;
  readonly store?: TicketStore;
  /** Solves large competitive batches off the event loop (worker threads); in process when absent. */
  readonly sliceSolver?: SliceSolver;
  /** Ratings, results and history (issue 12): LMDB in the process; in memory when absent. */
  readonly ratings?: RatingStore;
}

/** What the core's parts share: the injected deps, the cluster ports and the event hub. */
export interface CoreDeps extends CoordinatorDeps {
  readonly cluster: ClusterPorts;
  readonly events: EventHub;
}

export const realTimers: Timers = {
  set(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref?.();
    return () => clearTimeout(handle);
  },
};

export const silentLog: Log = { info() {}, warn() {}, debug() {} };
