import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './script-set.js';

/**
 * A client for `--redis` / GAMEFACTORY_REDIS: `redis://host:port[/db]` (one server) or
 * `redis-cluster://host:port,host:port,...` (a Redis Cluster, any of its masters as seeds).
 *
 * While Redis is unreachable, calls fail at once instead of queueing (no offline queue, one
 * attempt per request), so the node can answer UNAVAILABLE and report NOT_SERVING; the client
 * reconnects in the background with capped exponential backoff.
 */
export function connectRedis(url: string): RedisClient {
  const retryStrategy = (attempt: number): number => Math.min(50 * 2 ** Math.min(attempt, 10), 2_000);
  const common = { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy } as const;
  if (url.startsWith('redis-cluster://')) {
    const seeds = url
      .slice('redis-cluster://'.length)
      .split(',')
      .map((address) => {
        const [host, port] = address.split(':');
        if (!host || !port || !/^\d+$/.test(port)) throw new RangeError(`redis: "${address}" is not host:port in ${url}`);
        return { host, port: Number(port) };
      });
    return new Cluster(seeds, { enableOfflineQueue: false, clusterRetryStrategy: retryStrategy, redisOptions: common });
  }
  if (!url.startsWith('redis://') && !url.startsWith('rediss://')) {
    throw new RangeError(`redis: expected redis://host:port or redis-cluster://host:port,..., got "${url}"`);
  }
  return new Redis(url, { ...common, lazyConnect: false });
}

/** Resolves once the client can run commands (ioredis emits "ready"). */
export function redisReady(client: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis not ready after ${timeoutMs} ms (status ${client.status})`)), timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
