import { checkShardCount, planShards, shardMoves, type ShardDemand } from '../../sharding/index.js';
import type { RedisClient } from '../script-set.js';
import { ClusterMembership } from './cluster-membership.js';
import { ShardLeases } from './shard-leases.js';

/** What the node running shards is told; the keeper awaits none of these but handOver. */
export interface ShardOwnerHooks {
  /** This node owns the shard from now, in the term `token`: restore its tickets and run it. */
  gained(shard: number, token: number): void;
  /**
   * Stop acting for the shard at once: its lease was lost, could not be renewed within the lease
   * (another node may own it already), or was handed over. Writes still in flight with `token`
   * are refused by the scripts.
   */
  lost(shard: number, token: number, reason: string): void;
  /**
   * Before handing a shard to the node the plan gives it: finish what is in flight (the lease is
   * still held, so fenced writes still land). Given one tick; late or rejected, the shard is handed over anyway.
   */
  handOver?(shard: number, token: number): Promise<void>;
}

export interface KeeperLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ShardKeeperOptions {
  readonly nodeId: string;
  readonly shardCount: number;
  /** Lease and heartbeat TTL. Default 2000 ms. */
  readonly leaseMs?: number;
  /** How often to beat, renew and replan. Default lease/4: a dead owner's shards move within lease + lease/4, and three late ticks in a row do not lose a lease. */
  readonly tickMs?: number;
  readonly hooks: ShardOwnerHooks;
  readonly log?: KeeperLog;
  /** Creations waiting for a slot in a shard this node owns (written each tick for the grant loop). Absent: finds only. */
  readonly queued?: (shard: number) => number;
  /** This node's client-facing address, published with each beat once known (undefined until the gRPC port is bound). */
  readonly address?: () => string | undefined;
}

const silent: KeeperLog = { info() {}, warn() {} };

/** How long a shard counts as having demand after a find of it passed through a node. */
const HOT_MS = 30_000;
/** Finds are counted cluster-wide per window of this length; a shard's rate is read over the current and the last window. */
const DEMAND_WINDOW_MS = 10_000;

/**
 * Keeps this node's share of the shards: every tick it beats (and reads who is alive), renews its
 * leases, reads every shard's holder, plans (src/sharding) and moves toward the plan: hands over
 * the shards the plan gives others, takes the free ones the plan gives it. It also fences itself:
 * a shard whose last successful renewal was sent more than a lease ago is dropped locally even
 * if Redis cannot be reached to say so, since another node may own it by then.
 */
export class ShardKeeper {
  private readonly owned = new Map<number, { token: number; renewedAt: number }>();
  private holdersNow: readonly (string | undefined)[] = [];
  /** Each shard's last known fencing token (kept while the lease is free: it moves only when a node takes the shard). */
  private readonly fences = new Map<number, string>();
  /** When this node last marked each shard hot. */
  private readonly marked = new Map<number, number>();
  /** Finds of each shard through this node since the last tick (added to the shared count each tick). */
  private readonly findsHere = new Map<number, number>();
  /** Queued creations this node last wrote per owned shard (rewritten only when it changes, or to keep it alive). */
  private readonly queuedWritten = new Map<number, { n: number; at: number }>();
  private demandNow: ReadonlyMap<number, ShardDemand> = new Map();
  private liveNow: readonly string[] = [];
  private addressesNow: ReadonlyMap<string, string> = new Map();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = true;
  private ticking: Promise<void> = Promise.resolve();
  readonly leaseMs: number;
  readonly tickMs: number;

  private constructor(
    private readonly membership: ClusterMembership,
    private readonly leases: ShardLeases,
    private readonly options: ShardKeeperOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 2000;
    this.tickMs = options.tickMs ?? Math.floor(this.leaseMs / 4);
  }

  static async open(client: RedisClient, options: ShardKeeperOptions): Promise<ShardKeeper> {
    checkShardCount(options.shardCount);
    const leaseMs = options.leaseMs ?? 2000;
    if (!(leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${leaseMs}`);
    if (options.tickMs !== undefined && !(options.tickMs > 0 && options.tickMs < leaseMs)) {
      throw new RangeError(`tickMs must be > 0 and below leaseMs (${leaseMs}), got ${options.tickMs}`);
    }
    const membership = await ClusterMembership.open(client, options.nodeId, leaseMs, options.shardCount);
    const leases = await ShardLeases.open(client, options.nodeId, leaseMs);
    const keeper = new ShardKeeper(membership, leases, options);
    keeper.schedule(0);
    return keeper;
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  /** The shards this node owns now, with their tokens. */
  ownedShards(): ReadonlyMap<number, number> {
    return new Map([...this.owned].map(([shard, { token }]) => [shard, token]));
  }

  tokenOf(shard: number): number | undefined {
    return this.owned.get(shard)?.token;
  }

  /** The holder of each shard as last read (index = shard): where to send a shard's requests. */
  holders(): readonly (string | undefined)[] {
    return this.holdersNow;
  }

  /**
   * The shard's fencing token as last read (null before any): it moves when another term
   * begins, so a gateway watching for a new owner reads it here instead of from Redis.
   */
  fenceOf(shard: number): string | null {
    return this.fences.get(shard) ?? null;
  }

  /**
   * A find of the shard passed through this node: the shard counts as having demand for 30 s
   * (marked in Redis at most every 7.5 s per shard and node), and the plan spreads such shards first.
   */
  demand(shard: number): void {
    this.findsHere.set(shard, (this.findsHere.get(shard) ?? 0) + 1);
    const now = Date.now();
    if ((this.marked.get(shard) ?? -Infinity) > now - HOT_MS / 4) return;
    this.marked.set(shard, now);
    this.leases.markHot(shard, HOT_MS).catch(() => this.marked.delete(shard));
  }

  /**
   * Each shard's demand for slots as last read (every tick): finds per second across the cluster
   * over the last one or two windows of 10 s, and the creations its owner has waiting. What the
   * slot-grant loop apportions servers' slots by.
   */
  shardDemand(): ReadonlyMap<number, ShardDemand> {
    return this.demandNow;
  }

  liveNodes(): readonly string[] {
    return this.liveNow;
  }

  /**
   * The client-facing address of the node holding the shard as last read (every tick: no read
   * of its own), for a route hint; undefined when this node holds it, nobody does, or its holder
   * published none.
   */
  ownerAddress(shard: number): string | undefined {
    const holder = this.holdersNow[shard];
    return holder === undefined || holder === this.options.nodeId ? undefined : this.addressesNow.get(holder);
  }

  /** Runs one round now (after the one in progress). */
  tick(): Promise<void> {
    this.ticking = this.ticking.then(() => this.round());
    return this.ticking;
  }

  /** A clean stop: hands every shard over, releases it and leaves, so others take over at once. */
  async close(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all([...this.owned.keys()].map((shard) => this.handOver(shard, 'node stopping')));
    await this.membership.leave().catch(() => undefined);
  }

  /**
   * The shard's seat ended its term under `token` on its own (Redis failed a write): the lease is
   * given up, and the next round takes the shard again, under a new token, if the plan still
   * gives it to this node.
   */
  relinquish(shard: number, token: number, reason: string): void {
    if (this.owned.get(shard)?.token !== token) return;
    this.lose(shard, token, reason);
    void this.leases.release(shard, token).catch(() => false);
  }

  /** Stops without releasing or leaving, as a crash would (for tests of takeover). */
  halt(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      // Every tickMs from the start of a round, not after its end: a round is a few round trips,
      // each slower on a busy node, and renewals spaced by a round plus a tick lapsed leases.
      const started = Date.now();
      void this.tick().finally(() => this.schedule(Math.max(0, this.tickMs - (Date.now() - started))));
    }, delayMs);
  }

  private async round(): Promise<void> {
    if (!this.running) return;
    try {
      this.dropExpired();
      // Renewals first, and the beat with them: nothing before them waits on a round trip.
      const [view] = await Promise.all([this.membership.beat(this.options.address?.()), this.renewAll()]);
      this.liveNow = view.live;
      this.addressesNow = view.addresses;
      const now = Date.now();
      const window = Math.floor(now / DEMAND_WINDOW_MS);
      await this.recordDemand(window, now);
      const terms = await this.leases.terms(this.options.shardCount, window);
      terms.forEach((term, shard) => term.lease && this.fences.set(shard, term.lease.token));
      // The rate over the last window and the part of the current one gone by.
      const spanSeconds = (DEMAND_WINDOW_MS + (now % DEMAND_WINDOW_MS)) / 1000;
      this.demandNow = new Map(terms.map((term, shard) => [shard, { queued: term.queued, perSecond: (term.finds + term.findsBefore) / spanSeconds }]));
      const holders = terms.map((term) => term.lease?.node);
      this.holdersNow = holders;
      // Shards with finds lately spread evenly on their own (every node reads the same marks).
      const hot = new Set(terms.flatMap((term, shard) => (term.hot ? [shard] : [])));
      const target = planShards({ shardCount: this.options.shardCount, liveNodes: view.live, holders, hot });
      const moves = shardMoves(this.nodeId, target, holders);
      await Promise.all(moves.release.map((shard) => this.handOver(shard, 'the plan gives it to another node')));
      if (!this.running) return;
      await Promise.all(moves.acquire.map((shard) => this.take(shard)));
    } catch (error) {
      (this.options.log ?? silent).warn({ node: this.nodeId, error: (error as Error).message }, 'shard keeper: a round failed');
    }
  }

  /** This node's finds since the last tick into the shared counts; its owned shards' waiting creations. */
  private async recordDemand(window: number, now: number): Promise<void> {
    const finds = new Map(this.findsHere);
    this.findsHere.clear();
    const queued = new Map<number, number>();
    const ttlMs = Math.max(4 * this.tickMs, 2 * this.leaseMs);
    for (const shard of this.owned.keys()) {
      const n = this.options.queued?.(shard) ?? 0;
      const last = this.queuedWritten.get(shard);
      if (last?.n === n && (n === 0 || now - last.at < ttlMs / 2)) continue;
      queued.set(shard, n);
      this.queuedWritten.set(shard, { n, at: now });
    }
    for (const shard of this.queuedWritten.keys()) if (!this.owned.has(shard)) this.queuedWritten.delete(shard);
    if (finds.size === 0 && queued.size === 0) return;
    await this.leases.recordDemand(window, finds, queued, 2 * DEMAND_WINDOW_MS + ttlMs).catch((error: Error) => {
      // Counts lost to a failed write only make one window's rate low; not worth a retry.
      (this.options.log ?? silent).warn({ node: this.nodeId, error: error.message }, 'shard keeper: demand not recorded');
    });
  }

  /** Self-fencing: a shard not renewed within a lease may be another node's by now. */
  private dropExpired(): void {
    const now = Date.now();
    for (const [shard, { token, renewedAt }] of this.owned) {
      if (now - renewedAt >= this.leaseMs) this.lose(shard, token, 'not renewed within the lease');
    }
  }

  private async renewAll(): Promise<void> {
    await Promise.all(
      [...this.owned].map(async ([shard, held]) => {
        const sentAt = Date.now();
        const renewed = await this.leases.renew(shard, held.token).catch(() => undefined);
        if (this.owned.get(shard) !== held) return;
        if (renewed === true) held.renewedAt = sentAt;
        else if (renewed === false) this.lose(shard, held.token, 'lease lost');
      }),
    );
  }

  private async take(shard: number): Promise<void> {
    const sentAt = Date.now();
    const answer = await this.leases.acquire(shard);
    if (!answer.held || this.owned.has(shard)) return;
    this.owned.set(shard, { token: answer.token, renewedAt: sentAt });
    (this.options.log ?? silent).info({ node: this.nodeId, shard, token: answer.token }, 'this node now owns a shard');
    this.options.hooks.gained(shard, answer.token);
  }

  private async handOver(shard: number, reason: string): Promise<void> {
    const held = this.owned.get(shard);
    if (held === undefined) return;
    const finishing = this.options.hooks.handOver?.(shard, held.token);
    if (finishing !== undefined) {
      // Bounded by a tick: the round that hands over is also the one that renews the other leases.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not done within ${this.tickMs} ms`)), this.tickMs)));
      await Promise.race([finishing, late])
        .catch((error: unknown) => {
          (this.options.log ?? silent).warn({ node: this.nodeId, shard, error: (error as Error).message }, 'shard keeper: hand-over did not finish');
        })
        .finally(() => clearTimeout(timer));
    }
    if (this.owned.get(shard) !== held) return;
    this.lose(shard, held.token, reason);
    await this.leases.release(shard, held.token).catch(() => false);
  }

  private lose(shard: number, token: number, reason: string): void {
    this.owned.delete(shard);
    (this.options.log ?? silent).info({ node: this.nodeId, shard, token, reason }, 'this node no longer owns a shard');
    this.options.hooks.lost(shard, token, reason);
  }
}
