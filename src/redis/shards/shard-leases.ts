import { RedisFactoryLease, type LeaseAnswer } from '../factory-lease.js';
import { defineScripts, runScript, type RedisClient } from '../script-set.js';
import { shardFindsKey, shardKeys } from './shard-keys.js';

/** One shard as every node reads it each tick. */
export interface ShardTerm {
  /** Its holder and term (fencing token); undefined = free. */
  readonly lease?: { readonly node: string; readonly token: string };
  /** It had finds lately (the plan spreads such shards first). */
  readonly hot: boolean;
  /** Finds counted in the current window of time, and in the one before. */
  readonly finds: number;
  readonly findsBefore: number;
  /** Creations waiting for a slot, as its owner last wrote it. */
  readonly queued: number;
}

/** A write the shard's lease no longer allows: the writer is not the shard's owner any more. */
export class StaleShardOwner extends Error {
  constructor(
    readonly shard: number,
    readonly token: number,
  ) {
    super(`shard ${shard}: token ${token} is not the lease's; another node owns the shard now (or the lease lapsed)`);
  }
}

/**
 * One lease per shard with a fencing token (lease-acquire-2: larger than every token before,
 * Redis restarts without persistence included). A node takes only free leases and renews or
 * releases only its own, so two nodes never own a shard at once whatever their views.
 */
export class ShardLeases {
  private constructor(
    private readonly client: RedisClient,
    private readonly lease: RedisFactoryLease,
  ) {}

  static async open(client: RedisClient, nodeId: string, leaseMs: number): Promise<ShardLeases> {
    await defineScripts(client);
    const lease = await RedisFactoryLease.open(client, nodeId, leaseMs, (shard) => shardKeys(Number(shard)));
    return new ShardLeases(client, lease);
  }

  get nodeId(): string {
    return this.lease.nodeId;
  }

  get leaseMs(): number {
    return this.lease.leaseMs;
  }

  /** Takes the shard if free or still ours from a term we left: always a new term, a new token (renew extends one). */
  acquire(shard: number): Promise<LeaseAnswer> {
    return this.lease.acquire(String(shard));
  }

  /** False when the lease was lost (lapsed, maybe taken): stop acting for the shard at once. */
  renew(shard: number, token: number): Promise<boolean> {
    return this.lease.renew(String(shard), token);
  }

  release(shard: number, token: number): Promise<boolean> {
    return this.lease.release(String(shard), token);
  }

  /**
   * Who holds each shard now (index = shard; undefined = free). One GET per shard, sent together
   * (a Cluster routes each to its master); the keys cannot share one MGET, being in many slots.
   */
  async holders(shardCount: number): Promise<(string | undefined)[]> {
    return (await this.terms(shardCount)).map((term) => term.lease?.node);
  }

  /**
   * Each shard now: who holds it and in which term (its fencing token; undefined = free), and
   * whether it had finds lately. On one Redis, one MGET of every shard's keys (every node reads
   * them each tick: 64 commands a tick were most of an idle node's Redis calls); on a Redis
   * Cluster, one MGET per shard (its keys share its slot), sent together.
   */
  async terms(shardCount: number, window = 0): Promise<ShardTerm[]> {
    const keysOf = (shard: number) => {
      const k = shardKeys(shard);
      return [k.lease, k.hot, shardFindsKey(shard, window), shardFindsKey(shard, window - 1), k.queued];
    };
    const shards = Array.from({ length: shardCount }, (_, shard) => shard);
    let values: (string | null)[][];
    if (this.client.isCluster) values = await Promise.all(shards.map((shard) => this.client.mget(keysOf(shard))));
    else {
      const all = await this.client.mget(shards.flatMap(keysOf));
      values = shards.map((shard) => all.slice(5 * shard, 5 * shard + 5));
    }
    return values.map(([held, hot, finds, findsBefore, queued]) => ({
      lease: held === null || held === undefined ? undefined : { node: held.slice(held.indexOf(':') + 1), token: held.slice(0, held.indexOf(':')) },
      hot: hot !== null && hot !== undefined,
      finds: Number(finds ?? 0) || 0,
      findsBefore: Number(findsBefore ?? 0) || 0,
      queued: Number(queued ?? 0) || 0,
    }));
  }

  /**
   * Adds this node's count of each shard's finds to the window's shared count, and writes the
   * waiting creations of the shards it owns; each key lives `ttlMs`. Sent together, one command
   * pair per shard with news.
   */
  async recordDemand(window: number, finds: ReadonlyMap<number, number>, queued: ReadonlyMap<number, number>, ttlMs: number): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [shard, n] of finds) {
      const key = shardFindsKey(shard, window);
      writes.push(this.client.incrby(key, n), this.client.pexpire(key, ttlMs));
    }
    for (const [shard, n] of queued) writes.push(n > 0 ? this.client.set(shardKeys(shard).queued, String(n), 'PX', ttlMs) : this.client.del(shardKeys(shard).queued));
    await Promise.all(writes);
  }

  /** Marks the shard as having demand for `ttlMs` (a gateway forwarded a find of it). */
  async markHot(shard: number, ttlMs: number): Promise<void> {
    await this.client.set(shardKeys(shard).hot, '1', 'PX', ttlMs);
  }

  /** Stores (or with `record` "" removes) a waiting ticket of the shard; throws StaleShardOwner when the term is over. */
  async storeTicket(shard: number, token: number, ticketId: string, record: string): Promise<void> {
    const k = shardKeys(shard);
    const answer = await runScript<number>(this.client, 'gfShardTicketStore', [k.lease, k.tickets], [token, ticketId, record]);
    if (answer === -1) throw new StaleShardOwner(shard, token);
  }

  /** The shard's waiting tickets, for a new owner. */
  async tickets(shard: number): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.client.hgetall(shardKeys(shard).tickets)));
  }
}
