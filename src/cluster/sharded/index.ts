/** Factories sharded across nodes: a node's gateway routing each call to its shard (see README.md beside this file). */
export { ServerShards } from './server-shards.js';
export { ShardedGateway, type ClaimAnswer, type SharedClaimConflict, type SharedPlayerClaims } from './sharded-gateway.js';
export { ShardsView } from './shards-view.js';
