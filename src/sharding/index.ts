/** Which node owns which shard of factories; pure (see README.md beside this file). */
export { DEFAULT_SHARD_COUNT, checkShardCount, shardOfFactory, rendezvousWeight } from './shard-of.js';
export { planShards, shardMoves, type ShardView, type ShardMoves } from './shard-plan.js';
