/** Shards of factories on Redis: membership, per-shard leases, the keeper loop (see src/sharding/README.md). */
export { shardKeys, shardFindsKey, memberKeys } from './shard-keys.js';
export { ShardLeases, StaleShardOwner } from './shard-leases.js';
export { ClusterMembership, type MembershipView } from './cluster-membership.js';
export { ShardKeeper, type ShardKeeperOptions, type ShardOwnerHooks, type KeeperLog } from './shard-keeper.js';
