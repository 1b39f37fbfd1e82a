/**
 * Real `gamefactory start --redis` processes on one real Redis, sharded and relaying: QueryStats through
 * either node answers for every factory of the cluster (a factory the other node runs is answered
 * by that node; a template's factories are combined over both), a failover answers UNAVAILABLE
 * with a retry hint, never INTERNAL or UNKNOWN; and the operator page of one node lists the other
 * node's factories with its figures, in a real browser.
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { wireAttributes } from '@gamefactory/protocol';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../redis/redis-server.js';
import { NodeProcess as Node } from './node-process.js';
import type { MatchmakerClient, QueryStatsRequest, QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { shardOfFactory } from '../../src/sharding/index.js';
import { launchChromium } from '../operator-page/browser.js';
import { findGame } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
type NodeProcess = Node;
import { retried } from './cluster-fixture.js';
import { ownedShards } from './shard-log.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';

const DIFFICULTIES = ['normal', 'hard', 'expert', 'master', 'torment'];
/** The ten factories a server of version v201 hosts, with their partitions. */
const FACTORIES = DIFFICULTIES.flatMap((difficulty) =>
  [false, true].map((hardcore) => ({ name: `diablo/difficulty=${difficulty}/hardcore=${hardcore}/version=v201`, partition: { difficulty, hardcore, version: 'v201' } })),
);

/** Polls an async check (a gRPC call, an HTTP read) until it holds; fails after `ms` naming what was awaited. */
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An answer without its durations (running games age between two calls). */
const figures = (r: QueryStatsResponse) => ({ ...r, minDurationMs: 0n, maxDurationMs: 0n, averageDurationMs: 0n });

function nodeIdOf(node: NodeProcess): string {
  const line = node.log.split('\n').find((l) => /joined the (sharded )?cluster/.test(l));
  return (JSON.parse(line!) as { node: string }).node;
}

const metricsBase = (node: NodeProcess) => `http://127.0.0.1:${/"metrics":"127\.0\.0\.1:(\d+)"/.exec(node.log)![1]}`;

function queryStats(client: MatchmakerClient, request: Partial<QueryStatsRequest>): Promise<QueryStatsResponse> {
  return new Promise((resolve, reject) =>
    client.queryStats({ factory: '', template: '', partitionAttributes: {}, predicates: [], mode: 0, ...request }, (err, res) => (err ? reject(err) : resolve(res!))),
  );
}

/** QueryStats, asked again while it answers UNAVAILABLE (shards settling on their nodes), up to 10 s. */
async function settledStats(client: MatchmakerClient, request: Partial<QueryStatsRequest>): Promise<QueryStatsResponse> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await queryStats(client, request);
    } catch (error) {
      if ((error as ServiceError).code !== status.UNAVAILABLE || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

interface ClusterBody {
  nodes: { node: string; self: boolean; shards: number[]; running: boolean }[];
  factories: { total: number; rows: { name: string; node: string; shard: number; games: number; players: number; servers: number }[] };
}

async function clusterSection(node: NodeProcess): Promise<ClusterBody | null> {
  const res = await fetch(`${metricsBase(node)}/api/overview?top=500`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { cluster: ClusterBody | null }).cluster;
}

describe('cluster-wide QueryStats and operator page, sharded, real processes', () => {
  const cluster = shardedProcesses();
  let browser: Browser | undefined;
  afterAll(async () => browser?.close());

  it("QueryStats through a for a factory b runs gives b's figures; a template is combined over both; a's page lists b's factories", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const a = await cluster.start();
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');
    const [aId, bId] = [nodeIdOf(a), nodeIdOf(b)];
    const ofB = FACTORIES.filter((f) => ownedShards(b.log).has(shardOfFactory(f.name, 64)));
    const ofA = FACTORIES.filter((f) => ownedShards(a.log).has(shardOfFactory(f.name, 64)));
    // Ten factories hash to one node or the other; both get some but about once in 500 layouts.
    if (ofA.length === 0 || ofB.length === 0) return ctx.skip('every test factory fell on one node this time');
    const [fb, fa] = [ofB[0]!, ofA[0]!];

    // One server, on a, hosts all ten factories; players find through a.
    const server = new GameServerConnection(a.address, { serverId: 's1', endpoint: 's1:7777', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 40, runningGames: [] }, { autoJoin: true });
    cluster.onClose(() => server.close());
    await server.connect();
    const clientA = a.matchmaker();
    const clientB = b.matchmaker();
    cluster.onClose(() => (clientA.close(), clientB.close()));
    await retried(() => findGame(clientA, { ticketId: 'party-b', template: 'diablo', party: ['p1', 'p2'], partition: fb.partition }), 20_000);
    await retried(() => findGame(clientA, { ticketId: 'solo-a', template: 'diablo', party: ['p3'], partition: fa.partition }), 20_000);

    // b's factory through a: b's answer (the players joined once the server reported them).
    const ofFb = () => queryStats(clientA, { factory: fb.name });
    await eventually(async () => Number((await ofFb()).players) === 2, 10_000, `QueryStats of ${fb.name} through a counts b's two players`);
    const throughA = await ofFb();
    const throughB = await settledStats(clientB, { factory: fb.name });
    expect(figures(throughA)).toEqual(figures(throughB));
    expect(throughA).toMatchObject({ factories: 1, games: 1n, players: 2n, openGames: 1n, openSlots: 2n });
    expect(await settledStats(clientB, { factory: fa.name })).toMatchObject({ factories: 1, games: 1n, players: 1n });
    // A factory nobody runs is NOT_FOUND wherever its shard's owner is.
    await expect(settledStats(clientA, { factory: 'diablo/difficulty=hard/hardcore=false/version=v999' })).rejects.toMatchObject({ code: status.NOT_FOUND });

    // The template over both nodes: all ten factories, both games; the same through either node.
    const template = { template: 'diablo', partitionAttributes: wireAttributes({ version: 'v201' }) };
    const whole = await settledStats(clientA, template);
    expect(whole).toMatchObject({ factories: 10, games: 2n, players: 3n });
    expect(figures(await settledStats(clientB, template))).toEqual(figures(whole));
    const hardcore = fb.partition.hardcore;
    const sameHardcore = FACTORIES.filter((f) => f.partition.hardcore === hardcore).length;
    expect((await settledStats(clientA, { template: 'diablo', partitionAttributes: wireAttributes({ hardcore }) })).factories).toBe(sameHardcore);
    await expect(queryStats(clientA, { template: 'diablo', partitionAttributes: wireAttributes({ colour: 'red' }) })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringMatching(/^partition_attributes\[colour\]/),
    });

    // a's operator page: both nodes, and b's factory with b's figures.
    await eventually(async () => (await clusterSection(a))?.factories.rows.find((r) => r.name === fb.name)?.players === 2, 10_000, "a's page shows b's factory");
    const section = (await clusterSection(a))!;
    // Shards with finds spread ±1 per node, so a shard may have moved since: read who owns what now.
    const ownerNow = (name: string) => (ownedShards(b.log).has(shardOfFactory(name, 64)) ? bId : aId);
    expect(section.nodes.map((n) => [n.node, n.self])).toEqual([[aId, true], [bId, false]].sort((x, y) => String(x[0]).localeCompare(String(y[0]))));
    expect(section.nodes.map((n) => n.shards.length).reduce((x, y) => x + y)).toBe(64);
    expect(section.nodes.every((n) => n.shards.length >= 31)).toBe(true);
    expect(section.factories.total).toBe(10);
    expect(section.factories.rows.find((r) => r.name === fb.name)).toMatchObject({ node: ownerNow(fb.name), shard: shardOfFactory(fb.name, 64), games: 1, players: 2, servers: 1 });
    expect(section.factories.rows.find((r) => r.name === fa.name)).toMatchObject({ node: ownerNow(fa.name), games: 1, players: 1 });

    // The same in a real browser: the Cluster section of a's page lists b's factory on b.
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(`${metricsBase(a)}/`);
    const row = page.locator(`#cluster-factories tr[data-factory="${fb.name}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute('data-node')).toBe(ownerNow(fb.name));
    expect(await row.locator('td[data-field="players"]').textContent()).toBe('2');
    expect(await page.locator('#cluster').isVisible()).toBe(true);
    expect(await page.locator('#cluster-nodes tbody tr').count()).toBe(2);
    expect(await page.locator(`#cluster-nodes tr[data-node="${aId}"] td[data-field="node"]`).textContent()).toContain('this node');
    expect(await page.locator('#cluster-factories tbody tr').count()).toBe(10);
    // The local tables below are a's own factories only.
    if (ownerNow(fb.name) === bId) expect(await page.locator(`#factories tr[data-factory="${fb.name}"]`).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();

    // b dies: until a owns b's shards, b's factory is UNAVAILABLE with a retry hint; never another error.
    const wasB = ownerNow(fb.name) === bId;
    b.signal('SIGKILL');
    const codes = new Set<number>();
    let hints = 0;
    await eventually(
      async () => {
        try {
          await ofFb();
          return ownedShards(a.log).size === 64;
        } catch (error) {
          const e = error as ServiceError;
          codes.add(e.code);
          if (e.code === status.UNAVAILABLE && Number(e.metadata.get('retry-after-ms')[0]) > 0) hints += 1;
          return false;
        }
      },
      15_000,
      "a answers for b's factory again",
    );
    // A question to the dead node goes unanswered (2 s) until its lease lapses (2 s): refused at least once.
    expect([...codes]).toEqual(wasB ? [status.UNAVAILABLE] : []);
    if (wasB) expect(hints).toBeGreaterThan(0);
    await eventually(async () => (await clusterSection(a))?.nodes.length === 1, 10_000, "b's board drops off a's page");
  }, 120_000);
});

describe('cluster-wide QueryStats and operator page, relay mode, real processes', () => {
  let redis: RedisServer | undefined;
  const nodes: NodeProcess[] = [];
  const closing: (() => void)[] = [];
  beforeAll(async () => {
    if (hasRedis) redis = await RedisServer.start();
  }, 30_000);
  afterEach(async () => {
    for (const close of closing.splice(0)) close();
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
  });
  afterAll(async () => redis?.stop());

  it("a node that relays answers QueryStats from the matcher owner and its page lists the owner's factories", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const owner = await Node.start(redis!.url);
    nodes.push(owner);
    await owner.waitFor(/this node now runs the matcher/, 20_000);
    const relay = await Node.start(redis!.url);
    nodes.push(relay);
    const server = new GameServerConnection(relay.address, { serverId: 's1', endpoint: 's1:7777', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 8, runningGames: [] }, { autoJoin: true });
    closing.push(() => server.close());
    await server.connect();
    const client = relay.matchmaker();
    closing.push(() => client.close());
    const factory = FACTORIES[0]!;
    await retried(() => findGame(client, { ticketId: 'party', template: 'diablo', party: ['p1', 'p2'], partition: factory.partition }), 20_000);
    await eventually(async () => Number((await queryStats(client, { factory: factory.name })).players) === 2, 10_000, 'QueryStats through the relaying node');
    expect(await queryStats(client, { template: 'diablo', partitionAttributes: wireAttributes({ version: 'v201' }) })).toMatchObject({ factories: 10, games: 1n, players: 2n });
    await eventually(async () => (await clusterSection(relay))?.factories.rows.find((r) => r.name === factory.name)?.players === 2, 10_000, "the relaying node's page shows the owner's factory");
    const section = (await clusterSection(relay))!;
    expect(section.nodes.find((n) => n.node === nodeIdOf(owner))).toMatchObject({ self: false, running: true });
    expect(section.nodes.find((n) => n.node === nodeIdOf(relay))).toMatchObject({ self: true, running: false });
    expect(section.factories.rows.find((r) => r.name === factory.name)).toMatchObject({ node: nodeIdOf(owner), games: 1 });
  }, 60_000);
});
