import { createHash } from 'node:crypto';

/**
 * A fixed number of shards for the whole cluster, and each factory in one of them by a hash of
 * its name. Fixed rather than one shard per factory because factories are made on demand from
 * every combination of partitioning values (hundreds of them in a real config): the number of
 * leases, intake streams and renewals would grow with the config, while a fixed count keeps them
 * bounded and lets shards spread evenly by count. 64 is well above any plausible node count
 * (balance is within one shard, 1/16 of a node's share at 4 nodes) and small enough that every
 * lease is renewed a few times a second at negligible Redis cost.
 */
export const DEFAULT_SHARD_COUNT = 64;

export function checkShardCount(shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 4096) {
    throw new RangeError(`shardCount must be an integer in 1..4096, got ${shardCount}`);
  }
  return shardCount;
}

/**
 * The shard of a factory: the first 48 bits of SHA-256 of its name, modulo the shard count.
 * Every node must compute the same answer, across versions too, so this function is part of the
 * cluster's contract: changing it (or the count) moves factories between shards.
 */
export function shardOfFactory(factory: string, shardCount: number): number {
  return createHash('sha256').update(factory).digest().readUIntBE(0, 6) % shardCount;
}

/**
 * Rendezvous (highest random weight) score of a node for a shard: each shard ranks the nodes by
 * it, so a shard prefers the same node on every node that computes it, whoever else is alive.
 */
export function rendezvousWeight(node: string, shard: number): number {
  return createHash('sha256').update(`${shard}\u0000${node}`).digest().readUIntBE(0, 6);
}
