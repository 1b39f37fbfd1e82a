/**
 * Owner routing on real sharded nodes and a real redis-server: a find that crosses to another
 * node's shard carries that node's advertised address (FindGameUpdate.owner_address), one served
 * where it landed carries none; the matchmaking client follows the hint, so its next find of the
 * factory is served in process on the owner (no entry in the shard's inbox); and when the owner
 * dies with SIGKILL, the client's next find and a waiting ticket's resume go through the survivor.
 */
import { describe, expect, it } from 'vitest';
import { Matchmaker, type Ticket } from '@gamefactory/matchmaking-client';
import type { FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { shardRelayKeys } from '../../src/redis/relay/relay-keys.js';
import { shardOfFactory } from '../../src/sharding/index.js';
import { findGameRequest } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { until } from '../support/until.js';
import { PARTITION, ReconnectingServer, factoriesServed, retried } from './cluster-fixture.js';
import type { NodeProcess } from './node-process.js';
import { ownedShards } from './shard-log.js';
import { hasRedis, shardedProcesses } from './sharded-processes.js';

const FACTORY = `diablo/difficulty=${PARTITION.difficulty}/hardcore=${PARTITION.hardcore}/version=${PARTITION.version}`;
const DIFFICULTIES = ['normal', 'hard', 'expert', 'master', 'torment'];
const ALL_FACTORIES = DIFFICULTIES.flatMap((difficulty) =>
  [false, true].flatMap((hardcore) => ['v201', 'v202'].map((version) => ({ difficulty, hardcore, version }))),
);
const nameOf = (p: { difficulty: string; hardcore: boolean; version: string }) => `diablo/difficulty=${p.difficulty}/hardcore=${p.hardcore}/version=${p.version}`;

/** What the node logged as its client-facing address. */
const advertised = (node: NodeProcess) => /"advertise":"([^"]+)"/.exec(node.log)?.[1];

/** Every update of one FindGame call through `node`, until its assignment. */
function updatesOf(node: NodeProcess, ticketId: string, partition: Record<string, string | boolean>): Promise<FindGameUpdate[]> {
  const client = node.matchmaker();
  return new Promise<FindGameUpdate[]>((resolve, reject) => {
    const updates: FindGameUpdate[] = [];
    const call = client.findGame(findGameRequest({ ticketId, template: 'diablo', party: [`p-${ticketId}`], partition }));
    call.on('data', (u: FindGameUpdate) => updates.push(u));
    call.on('error', reject);
    call.on('end', () => (updates.some((u) => u.update?.$case === 'assignment') ? resolve(updates) : reject(new Error(`${ticketId}: no assignment`))));
  }).finally(() => client.close());
}

/** Finds the shard's owner has taken from its inbox stream so far: each one a node relayed (in-process finds add none). */
async function inboxAdded(redis: ReturnType<ReturnType<typeof shardedProcesses>['redis']>, shard: number): Promise<number> {
  const info = (await redis.call('XINFO', 'STREAM', shardRelayKeys(shard).inbox).catch(() => [])) as (string | number)[];
  const at = info.indexOf('entries-added');
  return at < 0 ? 0 : Number(info[at + 1]);
}

/** What both nodes logged about the shard and its relay, for a failure's message. */
function shardHistory(shard: number, ...nodes: NodeProcess[]): string {
  return nodes
    .map((n, i) => `node ${i}:\n${n.log.split('\n').filter((l) => l.includes(`"shard":${shard},`) || /resending|term|lease/.test(l)).slice(-20).join('\n')}`)
    .join('\n');
}

describe('sharded nodes: routing clients to the owner', () => {
  const cluster = shardedProcesses();
  const twoNodes = async (envA: Record<string, string> = {}) => {
    const a = await cluster.start(envA);
    await until(() => ownedShards(a.log).size === 64, 20_000, 'a takes every shard');
    const b = await cluster.start();
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 20_000, 'the shards spread 32/32');
    // Every node's keeper and gateways read the moved shards' new owners within a tick and a watch
    // (~1.2 s): before that a relayed find may be sent again (the owner changed under it) and a
    // node may still name itself as the owner (no hint).
    await new Promise((r) => setTimeout(r, 3000));
    return { a, b };
  };

  it('a find relayed to the other node\'s shard names that node\'s advertised address on its first update; a find served by the owner names none', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    // a advertises a name of its own (the flag's environment variable); b the default, its bound address.
    const { a, b } = await twoNodes({ GAMEFACTORY_ADVERTISE_ADDRESS: 'gf-a.test:7001' });
    expect(advertised(a)).toBe('gf-a.test:7001');
    expect(advertised(b)).toBe(b.address);
    const ownerOf = (p: (typeof ALL_FACTORIES)[number]) => (ownedShards(a.log).has(shardOfFactory(nameOf(p), 64)) ? 'a' : 'b');
    const ofA = ALL_FACTORIES.find((p) => ownerOf(p) === 'a');
    const ofB = ALL_FACTORIES.find((p) => ownerOf(p) === 'b');
    if (!ofA || !ofB) throw new Error('the 20 diablo factories all hash to one node’s shards');
    // One server hosting every diablo factory, on a; its slots are granted to both nodes' shards.
    const s = new GameServerConnection(a.address, { serverId: 's1', endpoint: 's1:7777', templates: ['diablo'], maxGames: 40 }, { autoJoin: true });
    cluster.onClose(() => s.close());
    await s.connect();

    const relayedToA = await retried(() => updatesOf(b, 'via-b-to-a', ofA), 20_000);
    expect(relayedToA[0]!.ownerAddress).toBe('gf-a.test:7001');
    expect(relayedToA.slice(1).map((u) => u.ownerAddress)).toEqual(relayedToA.slice(1).map(() => undefined)); // the first update only
    const relayedToB = await retried(() => updatesOf(a, 'via-a-to-b', ofB), 20_000);
    expect(relayedToB[0]!.ownerAddress).toBe(b.address);

    // Through the owner: served in process, no hint on any update.
    for (const [node, partition, id] of [[a, ofA, 'at-a'], [b, ofB, 'at-b']] as const) {
      const updates = await retried(() => updatesOf(node, id, partition), 20_000);
      expect(updates.map((u) => u.ownerAddress)).toEqual(updates.map(() => undefined));
    }
  }, 90_000);

  it('the matchmaking client given both nodes sends its next find of a factory to the owner a hint named, and survives the owner\'s kill -9', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const { a, b } = await twoNodes();
    const shard = shardOfFactory(FACTORY, 64);
    const [owner, other] = ownedShards(a.log).has(shard) ? [a, b] : [b, a];
    // The server sits on the owner (its events for the shard stay in process there, so the
    // shard's inbox counts relayed finds only) and moves to the other node when the owner dies.
    let serversAt = owner.address;
    const s1 = new ReconnectingServer(() => serversAt, 's1', 2);
    cluster.onClose(() => s1.close());
    await s1.connect();
    const redis = cluster.redis();
    // The owner knows the server before the first find (a find before that would fail and be tried again, and counted twice).
    const asked = owner.matchmaker();
    await retried(async () => expect(await factoriesServed(asked, FACTORY)).toBe(1), 10_000).finally(() => asked.close());

    // The other node first, so the first find of each client is relayed; then the owner.
    const calls = new Matchmaker({ addresses: [other.address, owner.address], resume: { initialDelayMs: 100, maxDelayMs: 500 } });
    const streams = new Matchmaker({ addresses: [other.address, owner.address], multiplex: true, resume: { initialDelayMs: 100, maxDelayMs: 500 } });
    cluster.onClose(() => (calls.close(), streams.close()));
    const request = (ticketId: string) => ({ ticketId, template: 'diablo', party: [`p-${ticketId}`], partition: { ...PARTITION } });
    // Each player reaches its game, so its seat is taken for good (a reservation left unused would free it).
    const assigned = (m: Matchmaker, ticketId: string) => m.find(request(ticketId)).assignment.then((assignment) => s1.join(assignment.gameId, `p-${ticketId}`));

    for (const [m, name] of [[calls, 'calls'], [streams, 'streams']] as const) {
      const before = await inboxAdded(redis, shard);
      await assigned(m, `${name}-1`);
      // Control: the first find crossed the relay (had it not, the check below would prove nothing).
      const relayed = await inboxAdded(redis, shard);
      expect(relayed, `${name}: the first find is relayed`).toBeGreaterThan(before);
      // Three more, so the calls' turn (other, owner, other...) cannot pass for the route.
      for (const i of [2, 3, 4]) await assigned(m, `${name}-${i}`);
      expect(await inboxAdded(redis, shard), `${name}: the later finds are served on the owner, in process\n${shardHistory(shard, owner, other)}`).toBe(relayed);
    }

    // Both games (4 seats each, the server's two slots) are full: the next ticket of each client waits, on the owner.
    const before = await inboxAdded(redis, shard);
    const waiting: Ticket[] = [calls.find(request('calls-wait')), streams.find(request('streams-wait'))];
    const resumed = waiting.map((t) => new Promise<string>((resolve) => t.once('resuming', (r) => resolve(r.address))));
    await Promise.all(waiting.map((t) => new Promise<void>((resolve) => t.once('queued', () => resolve()))));
    expect(await inboxAdded(redis, shard), 'the waiting tickets went to the owner').toBe(before);

    // The server comes back on the survivor with a second slot, for the waiting tickets' game.
    serversAt = other.address;
    s1.capacityOnReconnect(3);
    owner.signal('SIGKILL');
    // Both waiting tickets resume through the survivor and are placed there (the server re-announces its game).
    expect(await Promise.all(resumed)).toEqual([other.address, other.address]);
    const placed = await Promise.all(waiting.map((t) => t.assignment));
    expect(placed.map((p) => p.serverId)).toEqual(['s1', 's1']);
    // The clients' next finds of the factory: the dead owner is forgotten, the survivor serves them.
    expect((await calls.find(request('calls-after')).assignment).serverId).toBe('s1');
    expect((await streams.find(request('streams-after')).assignment).serverId).toBe('s1');
    await until(() => ownedShards(other.log).size === 64, 10_000, 'the survivor owns every shard');
  }, 120_000);
});
