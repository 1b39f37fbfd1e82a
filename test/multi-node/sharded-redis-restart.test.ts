/**
 * Redis killed (-9) and restarted on its AOF under two real sharded nodes: while it is down both
 * nodes say NOT_SERVING and a new find is refused UNAVAILABLE (never taken in and lost); once it is
 * back every ticket acknowledged before the crash, through either node, is still in line, and each
 * is seated once when a slot opens.
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { findGameRequest } from '../support/find-game.js';
import { until } from '../support/until.js';
import { PARTITION, ReconnectingServer, find, healthOf, retried } from './cluster-fixture.js';
import { NodeProcess } from './node-process.js';
import { ownedShards } from './shard-log.js';

const hasRedis = redisBinaryPresent();

describe('a Redis restart under sharded nodes', () => {
  let redis: RedisServer;
  const nodes: NodeProcess[] = [];
  const closing: (() => void)[] = [];

  beforeAll(async () => {
    if (!hasRedis) return;
    redis = await RedisServer.start({ appendfsync: 'always' });
  }, 30_000);
  afterAll(async () => {
    for (const close of closing.splice(0)) close();
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await redis?.stop();
  });

  it('with AOF: NOT_SERVING and UNAVAILABLE while it is down, then every waiting ticket is served once', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const start = async () => {
      const node = await NodeProcess.start(redis.url, { GAMEFACTORY_CLUSTER_MODE: 'sharded' });
      nodes.push(node);
      return node;
    };
    const a = await start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');

    // A server with no free slot on a: every ticket waits, stored in Redis by its shard's owner.
    const s = new ReconnectingServer(() => a.address, 's1', 0);
    await s.connect();
    closing.push(() => s.close());
    const clients = { a: a.matchmaker(), b: b.matchmaker() };
    closing.push(() => Object.values(clients).forEach((c) => c.close()));
    const through = (id: string) => (id <= 'w2' ? clients.a : clients.b);
    const ids = ['w1', 'w2', 'w3', 'w4'];
    await Promise.all(
      ids.map((id) =>
        retried(
          () =>
            new Promise<void>((resolve, reject) => {
              const call = through(id).findGame(findGameRequest({ ticketId: id, template: 'diablo', party: [`p-${id}`], partition: { ...PARTITION } }));
              call.on('data', () => resolve());
              call.on('error', reject);
            }),
          20_000,
        ),
      ),
    );

    const port = redis.port;
    const dir = redis.dir;
    await redis.kill('SIGKILL');
    for (const node of [a, b]) await retried(async () => expect(await healthOf(node.address)).toBe('NOT_SERVING'), 5_000);
    // Bounded, so a find taken in while Redis is down fails here rather than timing the test out.
    await expect(find(clients.b, 'while-down', AbortSignal.timeout(10_000))).rejects.toThrow(/UNAVAILABLE/);

    redis = await RedisServer.start({ appendfsync: 'always', port, dir });
    for (const node of [a, b]) await retried(async () => expect(await healthOf(node.address)).toBe('SERVING'), 15_000);
    // The tickets are still there: another request under one of their ids is refused (a lost
    // ticket would be taken as new).
    for (const id of ['w1', 'w3']) {
      const outcome = async () =>
        new Promise<string>((resolve) => {
          const call = through(id).findGame(findGameRequest({ ticketId: id, template: 'diablo', party: ['someone-else'], partition: { ...PARTITION } }));
          call.on('data', () => (resolve('taken as a new ticket'), call.cancel()));
          call.on('error', (e: ServiceError) => resolve(status[e.code]!));
        });
      let seen = await outcome();
      for (const deadline = Date.now() + 15_000; seen === 'UNAVAILABLE' && Date.now() < deadline; ) seen = await outcome();
      expect(seen, id).toBe('ALREADY_EXISTS');
    }
    // Each client asks again with its ticket id, on the node it used; then one game opens.
    const resumed = Promise.all(ids.map((id) => retried(() => find(through(id), id, AbortSignal.timeout(20_000)), 30_000)));
    await new Promise((r) => setTimeout(r, 1_000));
    s.setCapacity(1);
    const results = await resumed;
    expect(new Set(results.map((r) => r.assignment.gameId)).size).toBe(1);
    expect(results.map((r) => r.assignment.serverId)).toEqual(['s1', 's1', 's1', 's1']);
  }, 90_000);
});
