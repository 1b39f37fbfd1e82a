import type { Assignment, FindRequest } from '../../coordinator/messages.js';
import type { TicketRecord } from '../../coordinator/ports.js';

/**
 * What a cluster keeps outside its nodes, so that a shard's next owner can rebuild it: who holds
 * each shard (a lease with a fencing token that only goes up), the shard's durable tickets
 * (waiting ones with their arrival, those riding a creation in flight with where it was sent),
 * and one live ticket per player. Redis in production; `MemoryShardStore` in the simulator, with
 * the same semantics: the contract tests in test/cluster/store run one table against both.
 *
 * Every write a shard's owner makes is fenced by its term: it lands only while the shard's lease
 * still carries that token, so an owner that was paused past its lease, or whose Redis lost its
 * data and was taken over, can change nothing.
 */
export interface ShardStore {
  /** Renews this node's membership and answers the live nodes (heartbeats on the store's clock). */
  beat(node: string, ttlMs: number): Promise<readonly string[]>;
  /** Takes a free shard: a new term with a token larger than every one before, restarts included. */
  acquire(shard: number, node: string, leaseMs: number): Promise<Term | undefined>;
  /**
   * Extends a term: `missing` when no one holds the lease (it lapsed, or Redis lost its data), so
   * this node may take it again under a new term; `taken` when another term holds it.
   */
  renew(term: Term, leaseMs: number): Promise<Renewal>;
  /** Gives a term up (a clean hand-over). */
  release(term: Term): Promise<void>;
  /** Every shard's holder now (undefined: free). */
  holders(shardCount: number): Promise<readonly (Term | undefined)[]>;
  /** One step's durable writes for a shard, all or none, while `term` holds: else StaleTerm (saying whether the lease is free). */
  commit(term: Term, writes: ShardWrites): Promise<void>;
  /** What a new owner restores: the shard's stored tickets and the assignments kept for retries. */
  restore(shard: number): Promise<ShardState>;
  /** Claims every player of a party for `ticketId`, or names the ticket holding one of them. */
  claim(ticketId: string, playerIds: readonly string[], ttlMs: number): Promise<ClaimConflict | undefined>;
  /** Frees the players `ticketId` still holds. */
  unclaim(ticketId: string, playerIds: readonly string[]): Promise<void>;
}

export type Renewal = 'renewed' | 'missing' | 'taken';

/** One holding of a shard's lease. */
export interface Term {
  readonly shard: number;
  readonly node: string;
  readonly token: number;
}

export interface ShardWrites {
  readonly save: readonly TicketRecord[];
  readonly remove: readonly string[];
  /** Assignments told in this step: a client that did not hear one resumes and is answered it, at any owner. */
  readonly keep: readonly KeptAssignment[];
}

export interface KeptAssignment {
  readonly ticketId: string;
  readonly assignment: Assignment;
  /** The ticket's request, as the core fingerprints it: only the same request (and owner) is answered it again. */
  readonly request: FindRequest;
  /** When it may be forgotten (the ticket's time to live). */
  readonly until: number;
}

export interface ShardState {
  readonly records: readonly TicketRecord[];
  readonly kept: readonly KeptAssignment[];
}

export interface ClaimConflict {
  readonly playerId: string;
  readonly ticketId: string;
}

/** A fenced write refused: the term is over, and its owner must stop acting for the shard at once. */
export class StaleTerm extends Error {
  override readonly name = 'StaleTerm';
  constructor(
    readonly term: Term,
    /** No one holds the lease now (lapsed, or lost with Redis' data): its last holder may take it again and write back what it holds. */
    readonly leaseFree: boolean,
  ) {
    super(`shard ${term.shard}: term ${term.token} of ${term.node} is over${leaseFree ? ' (the lease is free)' : ''}`);
  }
}

/** The store could not be reached: nothing was written. */
export class StoreUnreachable extends Error {
  override readonly name = 'StoreUnreachable';
}
