import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from './node-process.js';

export const hasRedis = redisBinaryPresent();

/**
 * Real `gamefactory start --cluster-mode sharded` processes on one real redis-server, for one
 * describe block: its hooks start Redis once, and after each test close what the test registered,
 * stop its nodes and empty Redis for the next.
 */
export function shardedProcesses() {
  let redis: RedisServer | undefined;
  let admin: Redis | undefined;
  const nodes: NodeProcess[] = [];
  const closing: (() => void)[] = [];

  beforeAll(async () => {
    if (!hasRedis) return;
    redis = await RedisServer.start({ appendfsync: 'always' });
    admin = new Redis(redis.port, '127.0.0.1');
  }, 30_000);
  afterEach(async () => {
    for (const close of closing.splice(0)) close();
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await admin?.flushall();
  });
  afterAll(async () => {
    await admin?.quit();
    await redis?.stop();
  });

  return {
    /** A sharded node on the block's Redis, stopped after the test; `env`: more of the node's environment. */
    async start(env: Record<string, string> = {}): Promise<NodeProcess> {
      const node = await NodeProcess.start(redis!.url, { GAMEFACTORY_CLUSTER_MODE: 'sharded', ...env });
      nodes.push(node);
      return node;
    },
    /** The block's Redis, for what a test reads there (a stream's counters). */
    redis(): Redis {
      return admin!;
    },
    /** Runs after the test, before its nodes stop (clients, game servers). */
    onClose(close: () => void): void {
      closing.push(close);
    },
  };
}
