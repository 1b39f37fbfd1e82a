import type { Log, Timers } from '../../coordinator/ports.js';
import { planShards, shardMoves } from '../../sharding/index.js';
import type { ShardStore, Term } from '../store/shard-store.js';

export interface LeaseKeeperOptions {
  readonly nodeId: string;
  readonly shardCount: number;
  readonly leaseMs: number;
  readonly store: ShardStore;
  readonly now: () => number;
  readonly timers: Timers;
  readonly log: Log;
  /** This node holds the shard from now, in `term`. */
  gained(term: Term): void;
  /** Stop acting for the shard at once (lapsed, refused, or handed over). */
  lost(term: Term, reason: string): void;
  /**
   * The shard's lease was found free under a term of this node (it lapsed unseen, or Redis lost its
   * data) and this node took it again: its owner goes on under `next` and writes back what it holds.
   */
  retermed(previous: Term, next: Term): void;
}

/**
 * Keeps this node's share of the shards. Every tick (lease/4) it beats, renews its terms, reads
 * every shard's holder, plans (src/sharding: balanced, sticky, least movement) and moves toward the
 * plan: it hands over what the plan gives others and takes free shards the plan gives it. It fences
 * itself: a term whose last renewal was sent more than a lease ago is dropped even if the store
 * cannot be reached to say so, since another node may hold the shard by then.
 */
export class LeaseKeeper {
  private readonly owned = new Map<number, { term: Term; renewedAt: number }>();
  private holdersNow: readonly (Term | undefined)[] = [];
  private liveNow: readonly string[] = [];
  /**
   * The last holder seen of each shard, and when: a shard found free while that holder is still a
   * member (Redis lost its data, or one renewal was late) is left to it for a lease, so it can take
   * it again and write back its live state before another node restores the shard empty.
   */
  private readonly lastHolders = new Map<number, { node: string; at: number }>();
  /** When each node was last seen alive (membership is lost with Redis' data, too). */
  private readonly lastLive = new Map<string, number>();
  /** Re-acquisitions in flight, by shard: a failed commit and a failed renewal ask once. */
  private readonly retaking = new Map<number, Promise<Term | undefined>>();
  private cancelTick: (() => void) | undefined;
  private running = false;
  readonly tickMs: number;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.tickMs = Math.max(1, Math.floor(options.leaseMs / 4));
  }

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  stop(): void {
    this.running = false;
    this.cancelTick?.();
  }

  /** The node holding each shard, as last read (this node's own terms as it holds them). */
  holderOf(shard: number): string | undefined {
    if (this.owned.has(shard)) return this.options.nodeId;
    return this.holdersNow[shard]?.node;
  }

  termOf(shard: number): Term | undefined {
    return this.owned.get(shard)?.term;
  }

  /** Whether `term` is still this node's by its own clock: renewed within a lease (a paused node finds out here first). */
  holds(term: Term): boolean {
    this.fenceSelf();
    return this.owned.get(term.shard)?.term.token === term.token;
  }

  /** A term ended under its owner (a refused commit): forget it here too. */
  relinquish(term: Term, reason: string): void {
    if (this.owned.get(term.shard)?.term.token !== term.token) return;
    this.owned.delete(term.shard);
    this.options.lost(term, reason);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.cancelTick = this.options.timers.set(() => {
      void this.tick().finally(() => this.schedule(this.tickMs));
    }, ms);
  }

  private async tick(): Promise<void> {
    const { store, nodeId, leaseMs, shardCount } = this.options;
    this.fenceSelf();
    try {
      this.liveNow = await store.beat(nodeId, leaseMs);
      const now = this.options.now();
      for (const node of this.liveNow) this.lastLive.set(node, now);
      await Promise.all([...this.owned.values()].map((held) => this.renew(held)));
      this.holdersNow = await store.holders(shardCount);
      this.fenceSelf();
      const holders = this.holdersNow.map((h, shard) => this.plannedHolder(shard, h, now));
      const target = planShards({ shardCount, liveNodes: this.liveNow, holders });
      const moves = shardMoves(nodeId, target, holders);
      for (const shard of moves.release) {
        const held = this.owned.get(shard);
        if (!held) continue;
        this.owned.delete(shard);
        this.options.lost(held.term, 'handed over to another node');
        await store.release(held.term);
      }
      for (const shard of moves.acquire) {
        const term = await store.acquire(shard, nodeId, leaseMs);
        if (!term || !this.running) continue;
        this.owned.set(shard, { term, renewedAt: this.options.now() });
        this.options.gained(term);
      }
    } catch (error) {
      this.options.log.warn({ node: nodeId, error: (error as Error).message }, 'lease tick failed');
    }
  }

  private async renew(held: { term: Term; renewedAt: number }): Promise<void> {
    const sentAt = this.options.now();
    const renewal = await this.options.store.renew(held.term, this.options.leaseMs);
    if (this.owned.get(held.term.shard) !== held) return;
    if (renewal === 'renewed') held.renewedAt = sentAt;
    else if (renewal === 'missing') await this.retake(held.term);
    else this.relinquish(held.term, 'another node holds its lease');
  }

  /**
   * The lease of a term this node holds was found free: take it again under a new term (the
   * owner writes back what it holds), or give the shard up if another node was quicker.
   */
  retake(term: Term): Promise<Term | undefined> {
    let retaking = this.retaking.get(term.shard);
    if (retaking) return retaking;
    retaking = (async () => {
      try {
        // A term not renewed within a lease is over here, whatever the store says: this node may
        // have been paused while another took the shard and lost it again with Redis' data.
        this.fenceSelf();
        if (this.owned.get(term.shard)?.term.token !== term.token) return undefined;
        const next = await this.options.store.acquire(term.shard, this.options.nodeId, this.options.leaseMs);
        if (this.owned.get(term.shard)?.term.token !== term.token) return undefined;
        if (!next) {
          this.relinquish(term, 'another node took its lease');
          return undefined;
        }
        this.owned.set(term.shard, { term: next, renewedAt: this.options.now() });
        this.options.retermed(term, next);
        return next;
      } finally {
        this.retaking.delete(term.shard);
      }
    })();
    this.retaking.set(term.shard, retaking);
    return retaking;
  }

  /** Who the plan should see holding a shard: its lease's holder, or the last one seen while that node is still alive. */
  private plannedHolder(shard: number, held: Term | undefined, now: number): string | undefined {
    if (held) {
      this.lastHolders.set(shard, { node: held.node, at: now });
      return held.node;
    }
    const last = this.lastHolders.get(shard);
    if (!last || now - last.at > this.options.leaseMs) return undefined;
    const seen = this.lastLive.get(last.node);
    return seen !== undefined && now - seen <= this.options.leaseMs ? last.node : undefined;
  }

  /** Drops every term not renewed within a lease (counted from when the renewal was sent). */
  private fenceSelf(): void {
    const now = this.options.now();
    for (const held of [...this.owned.values()]) {
      if (now - held.renewedAt >= this.options.leaseMs) this.relinquish(held.term, 'not renewed within the lease');
    }
  }
}
