export { MemoryRedis, type MemoryRedisOptions } from './memory-redis.js';
export { MemoryRedisClient, CONNECTION_CLOSED, NOT_CONNECTED, type ClientHooks } from './client.js';
export type { Batch } from './batch.js';
export type { Keep } from './journal.js';
