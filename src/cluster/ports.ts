import type { ServerOrder } from '../coordinator/messages.js';

/**
 * What several coordinator nodes must share (issue 10, "Seams for the distributed mode").
 * Each port has an in-process adapter (./in-process/) for the embedded deployment; a shared
 * store (Redis, the next issue) implements the same interfaces and is checked by the same
 * contract tables (test/contracts/).
 *
 * Answers are `Eventually<T>`: the in-process adapters answer at once (so the embedded core
 * stays synchronous and pays no microtask per ticket), a remote adapter answers with a Promise.
 * Callers go through `whenReady` (below), which handles both.
 */
export type Eventually<T> = T | Promise<T>;

/** Runs `then` on the value now when it is there, or when the promise settles. */
export function whenReady<T, R>(value: Eventually<T>, then: (value: T) => R): Eventually<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * The global arrival counter: every new FindGame takes the next number, its priority for a slot
 * for as long as it waits (kept across restarts: `observe` moves the counter past restored ones).
 * Numbers are unique and strictly increasing across every node sharing the sequence.
 */
export interface ArrivalSequence {
  next(): Eventually<number>;
  /** A number already handed out (a restored ticket): later `next()` answers are greater. */
  observe(arrival: number): Eventually<void>;
}

/** Why a party could not be claimed: the first player found holding another ticket. */
export interface PlayerClaimConflict {
  readonly playerId: string;
  readonly ticketId: string;
}

/**
 * One live ticket per player, cluster-wide. A party is claimed or released as a whole: either
 * every player now belongs to `ticketId`, or none changed and the conflict is named.
 * Claiming again for the same ticket (a retry) succeeds.
 */
export interface PlayerIndex {
  claim(ticketId: string, playerIds: readonly string[]): Eventually<PlayerClaimConflict | undefined>;
  /** Frees the players still held by `ticketId`; players since claimed by another ticket stay. */
  release(ticketId: string, playerIds: readonly string[]): Eventually<void>;
  /** The ticket holding `playerId`, if any. */
  holder(playerId: string): Eventually<string | undefined>;
}

/** A ServerOrder with the id that makes its delivery idempotent. */
export interface Delivery {
  /** Unique per order: the creation's request id, a reservation token... */
  readonly orderId: string;
  readonly order: ServerOrder;
}

/** Where a node's game-server streams receive orders. */
export type OrderSink = (order: ServerOrder) => void;

/**
 * Delivers an order to whichever node holds that game server's stream. Delivering the same
 * `orderId` to the same server twice sends it once. `attach` is called by the node whose
 * GameServerLink stream the server is on; `detach` when that stream ends.
 */
export interface OrderDelivery {
  attach(serverId: string, sink: OrderSink): Eventually<void>;
  /** Only detaches if `sink` is still the one attached (a newer stream may have replaced it). */
  detach(serverId: string, sink: OrderSink): Eventually<void>;
  /** 'delivered', 'duplicate' (already delivered under this id) or 'unreachable' (no stream). */
  deliver(serverId: string, delivery: Delivery): Eventually<'delivered' | 'duplicate' | 'unreachable'>;
}

/** The cluster-wide ports a coordinator needs, one object so a deployment swaps them together. */
export interface ClusterPorts {
  readonly arrivals: ArrivalSequence;
  readonly players: PlayerIndex;
  readonly orders: OrderDelivery;
}
