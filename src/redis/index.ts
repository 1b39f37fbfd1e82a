/** The cluster mode on Redis; see README.md beside this file. */
export { RedisFactoryLease, type LeaseAnswer } from './factory-lease.js';
export { defineScripts, loadScriptSources, type RedisClient } from './script-set.js';
export { connectRedis, redisReady } from './connect.js';
