/**
 * The Redis deployments adapter tests run against: one redis-server and a 3-master Cluster,
 * both started by the test (test/redis/redis-server.ts) and stopped after, and on request the
 * cluster simulator's memory Redis, whose clock moves only when a case waits (`wait`).
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { MemoryRedis } from '../../src/cluster/simulation/memory-redis/index.js';
import type { RedisClient } from '../../src/redis/script-set.js';
import { RedisCluster, RedisServer, redisBinaryPresent } from './redis-server.js';

export const hasRedis = redisBinaryPresent();

export interface RedisTarget {
  readonly name: string;
  /** A client on the target; valid inside tests (the target starts in beforeAll). */
  client(): RedisClient;
  /** Lets `ms` of the target's clock pass: a real wait on a real Redis, the memory Redis' clock moved on. */
  wait(ms: number): Promise<void>;
}

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Registers beforeAll/afterAll that start both targets; call at the top level of a test file. */
export function redisTargets(options: { readonly memory?: boolean } = {}): RedisTarget[] {
  let server: RedisServer | undefined;
  let cluster: RedisCluster | undefined;
  let single: Redis | undefined;
  let clustered: Cluster | undefined;
  beforeAll(async () => {
    if (!hasRedis) return;
    server = await RedisServer.start();
    single = new Redis(server.port, '127.0.0.1');
    cluster = await RedisCluster.start();
    clustered = new Cluster(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await single?.quit();
    await clustered?.quit();
    await server?.stop();
    await cluster?.stop();
  });
  const targets: RedisTarget[] = [
    { name: 'one redis-server', client: () => single!, wait: realWait },
    { name: '3-master Redis Cluster', client: () => clustered!, wait: realWait },
  ];
  if (options.memory) {
    let memory: RedisClient | undefined;
    let now = Date.now();
    targets.push({
      name: 'the memory Redis',
      client: () => (memory ??= new MemoryRedis({ now: () => now }).client() as unknown as RedisClient),
      wait: async (ms) => {
        now += ms;
      },
    });
  }
  return targets;
}
