import { describe, expect, it } from 'vitest';
import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import { ShardedGateway } from '../../src/cluster/sharded/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, ServerChannel, ServerOrder } from '../../src/coordinator/messages.js';
import { realTimers, silentLog } from '../../src/coordinator/ports.js';
import { RedisGatewayStore } from '../../src/redis/relay/gateway-store.js';
import { MatcherSeat } from '../../src/redis/relay/matcher-seat.js';
import { NodeHeartbeat } from '../../src/redis/relay/node-heartbeat.js';
import { RedisOwnerStore } from '../../src/redis/relay/owner-store.js';
import { RelayGateway } from '../../src/redis/relay/relay-gateway.js';
import { shardRelayKeys } from '../../src/redis/relay/relay-keys.js';
import { defineScripts, type RedisClient } from '../../src/redis/script-set.js';
import { shardOfFactory } from '../../src/sharding/index.js';
import { Player } from '../multi-node/in-process-cluster.js';
import { hasRedis, redisTargets } from './redis-targets.js';
import { until } from '../support/until.js';

/**
 * The relay on a shard's own keys (`{s:<n>}`), on a real redis-server and a 3-master Cluster:
 * two shards, two owners, a node's gateway routing by factory. One owner stops (as if killed):
 * its shard's finds wait and are placed by the owner that takes it over; the other shard never
 * stops assigning.
 */
const SHARDS = 2;
const LEASE_MS = 1000;
const CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - { name: bravo, cooperative: { maxPlayers: 1 } }
  - { name: delta, cooperative: { maxPlayers: 1 } }
`);

const duplicate = (client: RedisClient) => (client as unknown as { duplicate(): RedisClient }).duplicate();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A shard's owner, driven here so the test can stop it dead (no release, no more writes). */
class Owner {
  private alive = true;
  private readonly loops: Promise<void>[] = [];
  constructor(readonly seat: MatcherSeat) {
    this.loops.push(
      (async () => {
        while (this.alive) {
          await this.seat.keepLease();
          await sleep(LEASE_MS / 3);
        }
      })(),
      (async () => {
        while (this.alive) {
          if (!this.seat.owner) await sleep(20);
          else await this.seat.step(100).catch(() => sleep(50));
        }
      })(),
    );
  }
  async kill(): Promise<void> {
    this.alive = false;
    await Promise.all(this.loops);
  }
}

describe.each(redisTargets())('sharded relay keys on $name', (target) => {
  it("each shard's keys sit in their own slot; an owner's stop pauses only its shard", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    await defineScripts(client);
    expect([shardOfFactory('bravo', SHARDS), shardOfFactory('delta', SHARDS)]).toEqual([0, 1]);
    const closing: (() => Promise<void> | void)[] = [];
    try {
      // Every shard's keys carry its tag: 64 shards are 64 slots, spread over a Cluster's masters.
      const slots = new Set<number>();
      for (let s = 0; s < 64; s++) slots.add(Number(await client.call('CLUSTER', 'KEYSLOT', shardRelayKeys(s).inbox).catch(() => s)));
      expect(slots.size).toBe(64);

      const environment = (id: string) => coreEnvironment(CONFIG, { now: Date.now, timers: realTimers, log: silentLog, newId: (() => { let n = 0; return () => `${id}-${++n}`; })() });
      const owner = async (node: string, shard: number) => {
        const reader = duplicate(client);
        closing.push(() => reader.disconnect());
        const store = await RedisOwnerStore.open(client, reader, node, LEASE_MS, 60_000, shardRelayKeys(shard));
        const env = environment(`${node}-${shard}`);
        return new Owner(new MatcherSeat(store, { nodeId: node, leaseMs: LEASE_MS, log: silentLog, now: Date.now, timers: realTimers, build: (place) => buildCore(CONFIG, env, place) }));
      };
      const gatewayOf = async (node: string) => {
        const heartbeat = new NodeHeartbeat(client, node, LEASE_MS);
        await heartbeat.start();
        const gateways = [0, 1].map((shard) => {
          const reader = duplicate(client);
          closing.push(() => reader.disconnect());
          const g = new RelayGateway(new RedisGatewayStore(client, reader, node, heartbeat, shardRelayKeys(shard)), node, CONFIG.templates, silentLog, realTimers, LEASE_MS / 3);
          g.start();
          closing.push(() => g.close());
          return g;
        });
        return new ShardedGateway(gateways, CONFIG.templates, silentLog);
      };

      const a0 = await owner('a', 0);
      const b1 = await owner('b', 1);
      closing.push(() => a0.kill(), () => b1.kill());
      await until(() => a0.seat.owner && b1.seat.owner, 5000, 'a owns shard 0, b shard 1');
      const [onA, onB] = [await gatewayOf('a'), await gatewayOf('b')];

      // A server on a, hosting both shards' factories; it confirms every creation at once.
      const orders: ServerOrder[] = [];
      let channel: ServerChannel;
      const connect = () => {
        channel = {
          send: (order) => {
            orders.push(order);
            if (order.kind === 'createGame') setImmediate(() => onA.onServerEvent('s', { kind: 'gameCreated', requestId: order.requestId, gameId: `g-${order.playerIds[0]}` }));
          },
          close: () => setTimeout(connect, 50),
        };
        onA.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 100, maxStartsPerSecond: 0 }, runningGames: [] }, channel);
      };
      connect();
      const find = (factory: string, id: string): Player => {
        const p = new Player(id);
        const request: FindRequest = { ...p.request(), template: factory, partition: new Map() };
        onB.find(request, p);
        return p;
      };

      const first = [find('bravo', 'b1'), find('delta', 'd1')];
      await until(() => first.every((p) => p.assignments.length === 1), 10_000, 'both shards assign');

      // a's owner stops dead: shard 0 pauses, shard 1 goes on.
      await a0.kill();
      const stopped = Date.now();
      const waiting = find('bravo', 'b2');
      const during = find('delta', 'd2');
      await until(() => during.assignments.length === 1, 5000, 'shard 1 keeps assigning');
      expect(waiting.assignments).toEqual([]);
      const takeover = await owner('b', 0);
      closing.push(() => takeover.kill());
      await until(() => waiting.assignments.length === 1, 10_000, "shard 0's waiting find placed by its new owner");
      expect(Date.now() - stopped).toBeLessThan(3 * LEASE_MS + 3000); // takeover within the lease, with room for a loaded machine
      expect([...first, waiting, during].flatMap((p) => p.errors)).toEqual([]);
      // Each player seated once: in a game created for it, or (b2) in b1's game, which the
      // gateways announced to shard 0's new owner with the server (its stream stayed open).
      const seated = orders.flatMap((o) => (o.kind === 'createGame' || o.kind === 'reserveSeats' ? o.playerIds : []));
      expect(seated.sort()).toEqual(['p-b1', 'p-b2', 'p-d1', 'p-d2']);
    } finally {
      for (const close of closing.reverse()) await close();
    }
  }, 40_000);
});
