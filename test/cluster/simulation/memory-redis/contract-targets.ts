/**
 * The two Redis a contract case runs on: the memory Redis on a clock the case moves, and a real
 * redis-server (test/redis/redis-server.ts: a free port, a temp dir) on the wall clock.
 */
import { Redis } from 'ioredis';
import { redisReady } from '../../../../src/redis/connect.js';
import { defineScripts, runBatchScript, runScript, type RedisClient } from '../../../../src/redis/script-set.js';
import { MemoryRedis } from '../../../../src/cluster/simulation/memory-redis/index.js';
import { RedisServer } from '../../../redis/redis-server.js';

export interface ContractTarget {
  /** A connection (the adapters' kind of client, scripts defined); `n` names a second node's. */
  client(n?: number): Promise<RedisClient>;
  /** Waits until the key's time to live ran out (the memory Redis: its clock moves there). */
  expire(key: string): Promise<void>;
  /** Waits until the Redis clock (TIME) is past `ms`. */
  passTime(ms: number): Promise<void>;
  /** kill -9 and start again: 'none' without persistence, 'all' with an append-only file fsynced always. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export type Persistence = 'none' | 'all';

/** How each case reads a reply: errors as their message, so two targets' transcripts compare. */
export function plain(value: unknown): unknown {
  if (value instanceof Error) return { error: value.message };
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

export async function memoryTarget(persistence: Persistence): Promise<ContractTarget> {
  let now = Date.now(); // the case's clock starts at the wall clock's time, so tokens compare with real ones
  const server = new MemoryRedis({ now: () => now });
  const clients: RedisClient[] = [];
  const target: ContractTarget = {
    async client(n = 0) {
      while (clients.length <= n) {
        const client = server.client() as unknown as RedisClient;
        await defineScripts(client);
        clients.push(client);
      }
      return clients[n]!;
    },
    async expire(key) {
      const left = Number(await (await target.client()).pttl(key));
      if (left >= 0) now += left + 1;
    },
    async passTime(ms) {
      now = Math.max(now, ms + 1);
    },
    async restart() {
      now += 5;
      server.restart({ keep: persistence });
    },
    async close() {
      for (const c of clients) c.disconnect();
    },
  };
  return target;
}

export async function realTarget(persistence: Persistence): Promise<ContractTarget> {
  const first = await RedisServer.start(persistence === 'all' ? { appendfsync: 'always' } : {});
  let server = first;
  const clients: Redis[] = [];
  const waitFor = async (done: () => Promise<boolean>) => {
    const deadline = Date.now() + 10_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('timed out waiting on the real redis-server');
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const target: ContractTarget = {
    async client(n = 0) {
      while (clients.length <= n) {
        const client = new Redis(server.port, '127.0.0.1');
        await defineScripts(client);
        clients.push(client);
      }
      return clients[n]!;
    },
    async expire(key) {
      const client = await target.client();
      await waitFor(async () => (await client.pttl(key)) === -2);
    },
    async passTime(ms) {
      const client = await target.client();
      await waitFor(async () => {
        const [s, us] = await client.time();
        return Number(s) * 1000 + Math.floor(Number(us) / 1000) > ms;
      });
    },
    async restart() {
      await server.kill('SIGKILL');
      server = await RedisServer.start({ dir: server.dir, port: server.port, ...(persistence === 'all' ? { appendfsync: 'always' as const } : {}) });
      await Promise.all(clients.map((c) => redisReady(c)));
    },
    async close() {
      for (const c of clients) c.disconnect();
      await server.stop();
      await first.stop();
    },
  };
  return target;
}

export { runBatchScript, runScript };
