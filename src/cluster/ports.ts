import type { ServerOrder } from '../coordinator/messages.js';

/**
 * What the edge running a core keeps beside it, because in a cluster it is not one core's to own:
 * one live ticket per player (claimed before a find enters the core, released by the core's
 * `release` effects) and the road from an order to the node holding its server's stream. The
 * in-process adapters (./in-process/) serve the embedded process and a cluster's single matcher
 * owner; test/contracts/ holds the table every adapter must pass.
 */

/** Why a party could not be claimed: the first player found holding another ticket. */
export interface PlayerClaimConflict {
  readonly playerId: string;
  readonly ticketId: string;
}

/**
 * One live ticket per player. A party is claimed or released as a whole: either every player now
 * belongs to `ticketId`, or none changed and the conflict is named. Claiming again for the same
 * ticket (a retry) succeeds.
 */
export interface PlayerIndex {
  claim(ticketId: string, playerIds: readonly string[]): PlayerClaimConflict | undefined;
  /** Frees the players still held by `ticketId`; players since claimed by another ticket stay. */
  release(ticketId: string, playerIds: readonly string[]): void;
  /** The ticket holding `playerId`, if any. */
  holder(playerId: string): string | undefined;
}

/** A ServerOrder with the id that makes its delivery idempotent. */
export interface Delivery {
  /** Unique per order: the creation's request id and attempt, a reservation token... */
  readonly orderId: string;
  readonly order: ServerOrder;
}

/** Where a game server's stream takes orders (its ServerChannel). */
export interface OrderSink {
  send(order: ServerOrder): void;
}

/**
 * Delivers an order to the stream attached for that game server. Delivering the same `orderId`
 * to the same server twice sends it once, a reconnect included.
 */
export interface OrderDelivery {
  attach(serverId: string, sink: OrderSink): void;
  /** Only detaches if `sink` is still the one attached (a newer stream may have replaced it). */
  detach(serverId: string, sink: OrderSink): void;
  /** 'delivered', 'duplicate' (already delivered under this id) or 'unreachable' (no stream). */
  deliver(serverId: string, delivery: Delivery): 'delivered' | 'duplicate' | 'unreachable';
}
