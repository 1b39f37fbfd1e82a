/**
 * The sharded mode on a 3-master Redis Cluster started by the test: two real `gamefactory start`
 * processes, every factory's shard owned by one of them, keys tagged by shard so they spread over
 * the masters. A server on node a hosts ten factories; players find through node b, so most finds
 * cross to a shard's owner and back. Every player is seated once, and QueryStats through either
 * node answers for the whole cluster (its owners are asked over the Cluster's pub/sub), and so
 * does either node's operator page.
 */
import { wireAttributes } from '@gamefactory/protocol';
import { status, type ServiceError } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchmakerClient, QueryStatsRequest, QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { RedisCluster, redisBinaryPresent } from '../redis/redis-server.js';
import { findGame } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
import { retried } from './cluster-fixture.js';
import { NodeProcess } from './node-process.js';
import { ownedShards } from './shard-log.js';

const hasRedis = redisBinaryPresent();
const PARTITIONS = ['normal', 'hard', 'expert', 'master', 'torment'].flatMap((difficulty) => [false, true].map((hardcore) => ({ difficulty, hardcore, version: 'v201' })));

function queryStats(client: MatchmakerClient, request: Partial<QueryStatsRequest>): Promise<QueryStatsResponse> {
  return new Promise((resolve, reject) =>
    client.queryStats({ factory: '', template: '', partitionAttributes: {}, predicates: [], mode: 0, ...request }, (err, res) => (err ? reject(err) : resolve(res!))),
  );
}

describe('sharded nodes on a 3-master Redis Cluster', () => {
  let cluster: RedisCluster;
  const nodes: NodeProcess[] = [];
  const closing: (() => void)[] = [];

  beforeAll(async () => {
    if (!hasRedis) return;
    cluster = await RedisCluster.start();
  }, 60_000);
  afterAll(async () => {
    for (const close of closing.splice(0)) close();
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
    await cluster?.stop();
  });

  it('finds through one node seat every player once in games the other node places; QueryStats through either node counts them all', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const url = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
    // Node a as a newcomer starts one (`--redis` alone: sharded is the default), b saying so.
    const a = await NodeProcess.start(url, { GAMEFACTORY_CLUSTER_MODE: undefined });
    nodes.push(a);
    await a.waitFor(/joined the sharded cluster/, 10_000);
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await NodeProcess.start(url, { GAMEFACTORY_CLUSTER_MODE: 'sharded' });
    nodes.push(b);
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');

    const server = new GameServerConnection(a.address, { serverId: 's1', endpoint: 's1:7777', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 40, runningGames: [] }, { autoJoin: true });
    closing.push(() => server.close());
    await server.connect();
    const client = b.matchmaker();
    closing.push(() => client.close());

    // Four players in each of the ten factories, all through b.
    const finds = PARTITIONS.flatMap((partition, f) =>
      Array.from({ length: 4 }, (_, i) => retried(() => findGame(client, { ticketId: `t${f}-${i}`, template: 'diablo', party: [`p${f}-${i}`], partition }), 30_000)),
    );
    const results = await Promise.all(finds);
    const games = new Map<string, number>();
    for (const r of results) games.set(r.assignment.gameId, (games.get(r.assignment.gameId) ?? 0) + 1);
    expect([...games.values()].sort()).toEqual(Array(10).fill(4));
    const seated = () => [...server.games.values()].flatMap((g) => [...g.players]);
    await until(() => seated().length === 40, 10_000, 'every player reaches the server');
    expect(new Set(seated()).size).toBe(40);

    // The shards' keys are spread over the masters, not held in one slot.
    const keysPerMaster = await Promise.all(
      cluster.servers.map(async (master) => {
        const admin = new Redis(master.port, '127.0.0.1');
        try {
          return await admin.dbsize();
        } finally {
          admin.disconnect();
        }
      }),
    );
    expect(keysPerMaster.filter((keys) => keys > 0).length, `keys per master: ${keysPerMaster.join(', ')}`).toBe(3);

    // The whole template, through either node: ten factories, ten games, forty players.
    const template = { template: 'diablo', partitionAttributes: wireAttributes({ version: 'v201' }) };
    for (const node of [a, b]) {
      const asked = node.matchmaker();
      closing.push(() => asked.close());
      await until(
        async () => {
          const whole = await queryStats(asked, template).catch((e: ServiceError) => (e.code === status.UNAVAILABLE ? undefined : Promise.reject(e)));
          return whole !== undefined && whole.factories === 10 && whole.games === 10n && whole.players === 40n;
        },
        10_000,
        'QueryStats of the template counts every factory, game and player',
      );
      // The operator page's Cluster section, from the boards every node publishes: both nodes, all ten factories.
      const metrics = `http://127.0.0.1:${/"metrics":"127\.0\.0\.1:(\d+)"/.exec(node.log)![1]}`;
      await until(
        async () => {
          const body = (await (await fetch(`${metrics}/api/overview?top=500`)).json()) as { cluster: { nodes: unknown[]; factories: { total: number; rows: { players: number }[] } } | null };
          const players = body.cluster?.factories.rows.reduce((n, r) => n + r.players, 0);
          return body.cluster?.nodes.length === 2 && body.cluster.factories.total === 10 && players === 40;
        },
        10_000,
        "the page's Cluster section lists both nodes and every factory with its players",
      );
    }
  }, 90_000);
});
