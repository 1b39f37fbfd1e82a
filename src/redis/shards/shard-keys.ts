import { ROOT } from '../keys.js';

/**
 * Keys of one shard of factories. Each carries the hash tag `{s:<shard>}`, so a shard's scripts
 * touch one Redis Cluster slot and the 64 shards spread over the Cluster's masters (no single
 * slot carries every ticket, as the relay's `{relay}` does).
 */
export const shardKeys = (shard: number) => {
  if (!Number.isInteger(shard) || shard < 0) throw new RangeError(`shard must be an integer >= 0, got ${shard}`);
  const base = `${ROOT}:{s:${shard}}`;
  return {
    /** `SET PX` "<token>:<nodeId>": who owns the shard, and in which term. */
    lease: `${base}:lease`,
    /** The last fencing token handed out for the shard (never goes back). */
    fence: `${base}:fence`,
    /** The shard's waiting tickets (ticketId -> record), so a new owner gives them their place back. */
    tickets: `${base}:tickets`,
    /** Set (PX) by any node's gateway that forwarded a find of the shard lately: the plan spreads such shards first. */
    hot: `${base}:hot`,
    /** Creations of the shard waiting for a slot, as its owner last wrote it (SET PX). */
    queued: `${base}:queued`,
  };
};

/** Finds of the shard counted by every node's gateway in one window of time (INCRBY, PX): its demand for slots. */
export const shardFindsKey = (shard: number, window: number): string => `${ROOT}:{s:${shard}}:finds:${window}`;

/** Cluster membership: small and read by every node each tick, so one slot is enough. */
export const memberKeys = {
  /** Live nodes, each scored by its heartbeat's expiry on the Redis clock. */
  nodes: `${ROOT}:{members}:nodes`,
  /** Each live node's client-facing address (host:port), published with its beat: what route hints name. */
  addresses: `${ROOT}:{members}:addresses`,
  /** The shard count every node must agree on (a different count maps factories differently). */
  shardCount: `${ROOT}:{members}:shard-count`,
};
