import type { FenceObserved, NodeDiedObserved } from './observation.js';
import { DeadlineQueue } from './deadline-queue.js';
import type { TicketLedger } from './ticket-ledger.js';
import { violation, type Violation } from './violation.js';

export interface ShardRuleOptions {
  /** The shard of a factory, as every node computes it: without it no ticket is tied to a dead owner. */
  readonly shardOf?: (factory: string) => number;
  /** How long after the death (or the capacity that came later) a dead owner's waiting ticket may wait; default leaseMs + 1000. */
  readonly failoverBoundMs?: number;
  /** The shard lease (default 2000 ms). */
  readonly leaseMs?: number;
  /**
   * True: a dead owner's ticket is bounded only once a 'capacity' observation for its factory
   * came after the death (the feeder says when capacity exists). False (default): capacity is taken
   * to exist from the death on, and a later 'capacity' observation moves the bound later.
   */
  readonly awaitCapacity?: boolean;
}

interface Orphan {
  readonly factory: string;
  readonly diedAt: number;
  readonly node: string;
  reported: boolean;
}

/**
 * Fencing tokens only go up per shard, and once a shard's owner dies its waiting tickets are
 * assigned within one lease + 1 s of the later of the death and the capacity for them.
 */
export class ShardRules {
  private readonly tokens = new Map<number, number>();
  private readonly ownerOf = new Map<number, string>();
  private readonly shardsOf = new Map<string, Set<number>>();
  private readonly factoriesOf = new Map<number, Set<string>>();
  private readonly capacityAt = new Map<string, number>();
  private readonly orphans = new Map<string, Orphan>();
  private readonly due = new DeadlineQueue<string>();
  private readonly boundMs: number;

  constructor(
    private readonly ledger: TicketLedger,
    private readonly options: ShardRuleOptions,
  ) {
    this.boundMs = options.failoverBoundMs ?? (options.leaseMs ?? 2000) + 1000;
  }

  fence(o: FenceObserved): Violation[] {
    const out: Violation[] = [];
    const last = this.tokens.get(o.shard);
    if (last !== undefined && o.token <= last) {
      out.push(violation('fence-monotonic', 'token went back', o.at, { shard: o.shard, token: o.token, previous: last, node: o.node }, `shard ${o.shard} was taken by ${o.node} with token ${o.token}, not above the ${last} before it`));
    }
    this.tokens.set(o.shard, Math.max(last ?? o.token, o.token));
    const previous = this.ownerOf.get(o.shard);
    if (previous !== undefined) this.shardsOf.get(previous)?.delete(o.shard);
    this.ownerOf.set(o.shard, o.node);
    let shards = this.shardsOf.get(o.node);
    if (!shards) this.shardsOf.set(o.node, (shards = new Set()));
    shards.add(o.shard);
    return out;
  }

  /** A find's factory joins its shard's factories (what a death looks up). */
  found(factory: string): void {
    const shardOf = this.options.shardOf;
    if (!shardOf || factory === '') return;
    const shard = shardOf(factory);
    let factories = this.factoriesOf.get(shard);
    if (!factories) this.factoriesOf.set(shard, (factories = new Set()));
    factories.add(factory);
  }

  /** Every ticket live now in the dead node's shards is bounded from now (or from its capacity). */
  nodeDied(o: NodeDiedObserved): Violation[] {
    for (const shard of this.shardsOf.get(o.node) ?? []) {
      for (const factory of this.factoriesOf.get(shard) ?? []) {
        for (const ticketId of this.ledger.liveIn(factory)) {
          if (this.orphans.has(ticketId)) continue;
          this.orphans.set(ticketId, { factory, diedAt: o.at, node: o.node, reported: false });
          if (!this.options.awaitCapacity) this.due.push(o.at + this.boundMs, ticketId);
        }
      }
    }
    this.shardsOf.delete(o.node);
    return [];
  }

  capacity(factory: string, at: number): void {
    this.capacityAt.set(factory, at);
    if (!this.options.awaitCapacity) return;
    for (const ticketId of this.ledger.liveIn(factory)) {
      const orphan = this.orphans.get(ticketId);
      if (orphan && at >= orphan.diedAt) this.due.push(at + this.boundMs, ticketId);
    }
  }

  /** The ticket was assigned or ended: no longer waiting on a dead owner; late if past its bound. */
  settled(ticketId: string, at: number, assigned: boolean): Violation[] {
    const orphan = this.orphans.get(ticketId);
    if (!orphan) return [];
    this.orphans.delete(ticketId);
    const deadline = this.deadline(orphan);
    if (!assigned || orphan.reported || deadline === undefined || at <= deadline) return [];
    return [this.late(ticketId, orphan, at, deadline)];
  }

  advance(now: number): Violation[] {
    const out: Violation[] = [];
    for (let due = this.due.popDueBefore(now); due; due = this.due.popDueBefore(now)) {
      const orphan = this.orphans.get(due.key);
      if (!orphan || orphan.reported) continue;
      const deadline = this.deadline(orphan);
      if (deadline === undefined) continue;
      if (deadline > due.at) {
        this.due.push(deadline, due.key); // capacity came later: its bound moved
        continue;
      }
      orphan.reported = true;
      out.push(this.late(due.key, orphan, deadline, deadline));
    }
    return out;
  }

  private deadline(orphan: Orphan): number | undefined {
    const capacity = this.capacityAt.get(orphan.factory);
    if (this.options.awaitCapacity) return capacity !== undefined && capacity >= orphan.diedAt ? capacity + this.boundMs : undefined;
    return Math.max(orphan.diedAt, capacity ?? orphan.diedAt) + this.boundMs;
  }

  private late(ticketId: string, orphan: Orphan, at: number, deadline: number): Violation {
    return violation('failover-bound', 'not assigned in time', at, { ticket: ticketId, node: orphan.node, factory: orphan.factory }, `ticket ${ticketId} of ${orphan.factory}, waiting on ${orphan.node} when it died at ${orphan.diedAt}, was not assigned by ${deadline}`);
  }
}
