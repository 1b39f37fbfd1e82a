import { defineScripts, runScript, type RedisClient } from '../script-set.js';
import { memberKeys } from './shard-keys.js';

export interface MembershipView {
  /** Every node whose heartbeat is current, this one included, sorted. */
  readonly live: readonly string[];
  /** False when this node's own heartbeat had lapsed before this beat (it stalled past the TTL). */
  readonly wasLive: boolean;
  /** The client-facing address each live node published (those that published one). */
  readonly addresses: ReadonlyMap<string, string>;
}

/**
 * Which nodes are alive: a sorted set of node ids scored by heartbeat expiry on the Redis clock
 * (member-beat-2). One script call per beat both renews this node and returns the live set, so
 * the shard plan always runs on a fresh view; a node that stops beating drops out one TTL later.
 * The same call publishes the node's client-facing address and reads every live node's, so a
 * node can name a shard's owner to clients (route hints) without a read of its own.
 */
export class ClusterMembership {
  private constructor(
    private readonly client: RedisClient,
    readonly nodeId: string,
    readonly ttlMs: number,
  ) {}

  /**
   * Joins the cluster. The first node records the shard count; a node configured with another
   * count is refused, since it would map factories to different shards.
   */
  static async open(client: RedisClient, nodeId: string, ttlMs: number, shardCount: number): Promise<ClusterMembership> {
    if (!(ttlMs > 0)) throw new RangeError(`heartbeat ttlMs must be > 0, got ${ttlMs}`);
    if (nodeId === '') throw new RangeError('nodeId must not be empty');
    await defineScripts(client);
    const before = await client.set(memberKeys.shardCount, String(shardCount), 'NX', 'GET');
    if (before !== null && Number(before) !== shardCount) {
      throw new RangeError(`shardCount: this node has ${shardCount} shards, the cluster on this Redis has ${before}; every node must use the same count`);
    }
    return new ClusterMembership(client, nodeId, ttlMs);
  }

  /** `address`: this node's client-facing host:port, once it has one (the gRPC port is bound after the node joins). */
  async beat(address = ''): Promise<MembershipView> {
    const [wasLive, live, published] = await runScript<[number, string[], (string | null)[]]>(
      this.client,
      'gfMemberBeat',
      [memberKeys.nodes, memberKeys.addresses],
      [this.nodeId, this.ttlMs, address],
    );
    const addresses = new Map<string, string>();
    live.forEach((id, i) => published[i] && addresses.set(id, published[i]));
    return { live: live.sort(), wasLive: wasLive === 1, addresses };
  }

  /** Leaves at once (a clean stop), so others take its shards without waiting out the TTL. */
  async leave(): Promise<void> {
    await Promise.all([this.client.zrem(memberKeys.nodes, this.nodeId), this.client.hdel(memberKeys.addresses, this.nodeId)]);
  }
}
