/** Which node owns which shard of factories; pure (see README.md beside this file). */
export { DEFAULT_SHARD_COUNT, checkShardCount, shardOfFactory, rendezvousWeight } from './shard-of.js';
export { planShards, shardMoves, type ShardView, type ShardMoves } from './shard-plan.js';
export { DEFAULT_FLOOR_WEIGHT, MIN_TOLERANCE_SLOTS, apportionSlots, type ServerSlotsNow, type ShardDemand, type ApportionOptions, type Apportioned } from './slot-apportion.js';
export { waterFill } from './water-fill.js';
export { shardIdPrefix, shardOfId } from './creation-ids.js';
