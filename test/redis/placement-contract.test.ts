import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessPlacement } from '../../src/placement/index.js';
import type { PlacementPort } from '../../src/placement/placement-port.js';
import { RedisPlacement } from '../../src/redis/redis-placement.js';
import type { RedisClient } from '../../src/redis/script-set.js';
import { placementCases, type MakePlacement, type ManualClock } from '../contracts/placement-port.contract.js';
import { RedisCluster, RedisServer, redisBinaryPresent } from './redis-server.js';

const hasRedis = redisBinaryPresent();
let prefixes = 0;

/** A fresh adapter per case: its own key prefix (and so, on the Cluster, its own slot). */
function redisMaker(client: () => RedisClient): MakePlacement {
  return async (policy) => {
    const clock: ManualClock = { now: 0 };
    const port = await RedisPlacement.open({ client: client(), policy, now: () => clock.now, prefix: `gf:{placement-${++prefixes}}` });
    return { port, clock };
  };
}

const inProcess: MakePlacement = async (policy) => {
  const clock: ManualClock = { now: 0 };
  return { port: new InProcessPlacement(policy, () => clock.now), clock };
};

function runTable(label: string, make: () => MakePlacement, needsRedis: boolean): void {
  describe(`PlacementPort contract: ${label}`, () => {
    for (const c of placementCases) {
      it(c.name, async (ctx) => {
        if (needsRedis && !hasRedis) return ctx.skip('redis-server is not installed');
        await c.run(await make()(c.policy ?? 'fill'));
      });
    }
    it('a seeded random run answers exactly as InProcessPlacement does', async (ctx) => {
      if (needsRedis && !hasRedis) return ctx.skip('redis-server is not installed');
      await compareWithInProcess(make());
    });
  });
}

runTable('InProcessPlacement', () => inProcess, false);

let server: RedisServer | undefined;
let single: Redis | undefined;
runTable('RedisPlacement on one redis-server', () => redisMaker(() => single!), true);

let cluster: RedisCluster | undefined;
let clusterClient: Cluster | undefined;
runTable('RedisPlacement on a 3-master Redis Cluster', () => redisMaker(() => clusterClient!), true);

beforeAll(async () => {
  if (!hasRedis) return;
  server = await RedisServer.start();
  single = new Redis(server.port, '127.0.0.1');
  cluster = await RedisCluster.start();
  clusterClient = new Cluster(cluster.nodes);
}, 60_000);

afterAll(async () => {
  await single?.quit();
  await clusterClient?.quit();
  await server?.stop();
  await cluster?.stop();
});

/** Deterministic xorshift, so a failure replays. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** 400 random calls on both adapters with one clock; every answer must be the same. */
async function compareWithInProcess(make: MakePlacement): Promise<void> {
  for (const policy of ['fill', 'spread'] as const) {
    const subject = await make(policy);
    const model = await inProcess(policy);
    const rand = random(policy === 'fill' ? 7 : 11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const factories = ['a', 'b', 'c'];
    const servers = ['s1', 's2', 's3', 's4'];
    let priority = 0;
    const log: string[] = [];
    const seen = { claimed: 0, queued: 0, drained: 0, retryAt: 0 };
    for (let step = 0; step < 400; step++) {
      const now = Math.floor(rand() * 50) + step * 40;
      subject.clock.now = now;
      model.clock.now = now;
      const op = Math.floor(rand() * 11);
      const call = async (port: PlacementPort): Promise<unknown> => {
        const r = random(step * 31 + op);
        const f = factories[Math.floor(r() * 3)]!;
        const s = servers[Math.floor(r() * 4)]!;
        const capacity = { maxGames: Math.floor(r() * 4), maxStartsPerSecond: pick2(r, [0, 0, 1, 2.5, 10]) };
        switch (op) {
          case 0:
            return port.addServer(s, factories.filter(() => r() < 0.6).concat(f), capacity, Math.floor(r() * 2));
          case 1:
            return port.removeServer(s);
          case 2:
            return port.setCapacity(s, capacity);
          case 3:
            return port.gameEnded(s);
          case 4:
            return port.recordDemand(f);
          case 5:
            return port.place(f, `r${Math.floor(r() * 60)}`, priority);
          case 7:
            return r() < 0.5 ? port.confirm(s) : port.release(s);
          case 8:
            return port.withdraw(`r${Math.floor(r() * 60)}`);
          case 6:
          case 9:
            return port.drain();
          default:
            return [await port.position(`r${Math.floor(r() * 60)}`), await port.head(f, 3), await port.depth(f), await port.depth(), await port.freeSlots(f), await port.freeSlots()];
        }
      };
      priority += pick([1, 1, 1, -3]);
      const [got, want] = [await call(subject.port), await call(model.port)];
      log.push(`${step} op${op}`);
      expect(got, log.slice(-5).join(' | ')).toEqual(want);
      const w = want as { serverId?: string; position?: number; placed?: unknown[]; retryAt?: number } | undefined;
      if (w?.serverId !== undefined) seen.claimed++;
      if (w?.position !== undefined) seen.queued++;
      if (w?.placed !== undefined && w.placed.length > 0) seen.drained++;
      if (w?.retryAt !== undefined) seen.retryAt++;
    }
    // The run reached every path worth comparing.
    expect(Math.min(seen.claimed, seen.queued, seen.drained, seen.retryAt), JSON.stringify(seen)).toBeGreaterThan(0);
  }
}

function pick2<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}
