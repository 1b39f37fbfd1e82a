import { describe, expect, it } from 'vitest';
import { clusterOverview, type NodeBoard } from '../../src/cluster/stats/cluster-board.js';
import { ClusterStats, type StatsDirectory, type StatsPart } from '../../src/cluster/stats/cluster-stats.js';
import { emptyStats } from '../../src/cluster/stats/combine-stats.js';
import { parseConfig } from '../../src/config/load.js';
import type { StatsQuery } from '../../src/coordinator/stats-query.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { decodeAsk, decodeReply, encodeAsk } from '../../src/redis/stats/stats-wire.js';

const CONFIG = parseConfig(`
factories:
  - name: diablo
    partitioning: { difficulty: [normal, hard] }
    cooperative: { maxPlayers: 4 }
`);
const SHARDS = 4;
const byFactory = (factory: string): StatsQuery => ({ factory, template: '', partition: new Map(), predicates: [], mode: 'all' });
const byTemplate = (template: string, partition: Record<string, string> = {}): StatsQuery => ({
  factory: '',
  template,
  partition: new Map(Object.entries(partition)),
  predicates: [['quest', 's:q1']],
  mode: 'any',
});
const part = (games: number, shards?: number[]): StatsPart => ({ answer: { ...emptyStats(), factories: 1, games }, shards });

/** Node "a" asks; "b" and "c" are its peers, each answering with what `parts` says. */
function cluster(directory: StatsDirectory, parts: Record<string, () => StatsPart>) {
  const asked: string[] = [];
  const stats = new ClusterStats({
    nodeId: 'a',
    directory,
    peers: {
      ask: async (node, query) => {
        asked.push(`${node}:${query.factory || query.template}`);
        return parts[node]!();
      },
    },
    local: () => parts.a!(),
    templates: () => CONFIG.templates,
    shardCount: SHARDS,
    retryMs: 1000,
  });
  return { stats, asked };
}

const unavailable = async (answer: Promise<unknown>) => {
  const error = await answer.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MatchmakingError);
  expect((error as MatchmakingError).code).toBe('UNAVAILABLE');
  expect((error as MatchmakingError).retryAfterMs).toBe(1000);
  return error as MatchmakingError;
};

describe('ClusterStats: QueryStats for the whole cluster on any node', () => {
  it("one factory: this node's view when it runs it, otherwise its owner's answer", async () => {
    const owners: Record<string, string> = { x: 'a', y: 'b' };
    const { stats, asked } = cluster({ ownerOf: (f) => owners[f], owners: () => ['a', 'b'] }, { a: () => part(1), b: () => part(7) });
    expect((await stats.query(byFactory('x'), 0)).games).toBe(1);
    expect((await stats.query(byFactory('y'), 0)).games).toBe(7);
    expect(asked).toEqual(['b:y']);
  });

  it('a factory whose owner fails over, or whose owner cannot answer yet, is UNAVAILABLE with a retry hint', async () => {
    const refusing = () => {
      throw new MatchmakingError('UNAVAILABLE', 'this node runs no shard right now');
    };
    const { stats } = cluster({ ownerOf: (f) => (f === 'x' ? undefined : 'b'), owners: () => [] }, { a: () => part(0), b: refusing });
    expect((await unavailable(stats.query(byFactory('x'), 0))).message).toMatch(/failing over/);
    await unavailable(stats.query(byFactory('y'), 0));
    await unavailable(stats.query(byTemplate('diablo'), 0));
  });

  it("the owner's refusal of a bad query comes back as it is (NOT_FOUND, INVALID_ARGUMENT)", async () => {
    const { stats } = cluster({ ownerOf: () => 'b', owners: () => ['b'] }, {
      b: () => {
        throw new MatchmakingError('NOT_FOUND', 'factory: "zzz" is not live');
      },
    });
    await expect(stats.query(byFactory('zzz'), 0)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a template: every owner answers for its shards and the parts are summed, when they cover every shard once', async () => {
    const { stats, asked } = cluster({ ownerOf: () => undefined, owners: () => ['a', 'b', 'b', 'c'] }, {
      a: () => part(1, [0]),
      b: () => part(2, [1, 2]),
      c: () => part(4, [3]),
    });
    expect(await stats.query(byTemplate('diablo', { difficulty: 's:hard' }), 0)).toMatchObject({ factories: 3, games: 7 });
    expect(asked.sort()).toEqual(['b:diablo', 'c:diablo']);
  });

  it('a template whose shards are not covered exactly once (a shard moving) is UNAVAILABLE, never a partial or doubled sum', async () => {
    const missing = cluster({ ownerOf: () => undefined, owners: () => ['a', 'b'] }, { a: () => part(1, [0, 1]), b: () => part(1, [2]) });
    expect((await unavailable(missing.stats.query(byTemplate('diablo'), 0))).message).toMatch(/shard 3 is moving/);
    const doubled = cluster({ ownerOf: () => undefined, owners: () => ['a', 'b'] }, { a: () => part(1, [0, 1, 2]), b: () => part(1, [2, 3]) });
    expect((await unavailable(doubled.stats.query(byTemplate('diablo'), 0))).message).toMatch(/shard 2 is moving/);
  });

  it('a bad template query is refused here, naming the field, before any node is asked', async () => {
    const { stats, asked } = cluster({ ownerOf: () => undefined, owners: () => ['b'] }, { b: () => part(1, [0, 1, 2, 3]) });
    await expect(stats.query(byTemplate('nope'), 0)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/template/) });
    await expect(stats.query(byTemplate('diablo', { colour: 's:red' }), 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^partition_attributes\[colour\]/) });
    expect(asked).toEqual([]);
  });

  it('a directory that cannot be read (Redis down) is UNAVAILABLE, not INTERNAL', async () => {
    const { stats } = cluster({ ownerOf: () => Promise.reject(new Error('connection refused')), owners: () => Promise.reject(new Error('connection refused')) }, {});
    await unavailable(stats.query(byFactory('x'), 0));
    await unavailable(stats.query(byTemplate('diablo'), 0));
  });
});

describe('stats questions on the wire', () => {
  it('a query survives the round trip; a malformed one is refused naming the field', () => {
    const query = byTemplate('diablo', { difficulty: 's:hard' });
    const back = decodeAsk(encodeAsk('a:1', 'a', query));
    expect(back).toEqual({ id: 'a:1', from: 'a', query: { ...query, partition: new Map([['difficulty', 's:hard']]) } });
    expect(() => decodeAsk(JSON.stringify({ id: '1', from: 'a', query: { factory: '', template: 'd', partition: [], predicates: [], mode: 'most' } }))).toThrow(/query\.mode/);
    expect(() => decodeAsk(JSON.stringify({ id: '1', from: 'a', query: { factory: '', template: 'd', partition: {}, predicates: [], mode: 'all' } }))).toThrow(/query\.partition/);
    expect(() => decodeReply(JSON.stringify({ id: '1', part: { answer: {} } }))).toThrow(/part\.answer/);
  });
});

describe('clusterOverview: every node board as one page section', () => {
  const factory = (name: string, games: number) => ({
    name,
    template: 'diablo',
    strategy: 'cooperative' as const,
    shard: 0,
    waitingTickets: 1,
    queueLength: 0,
    games,
    players: 2 * games,
    openGames: games,
    openSlots: 0,
    servers: 1,
  });
  it('a row per node with its totals, a row per factory with the node that runs it; a factory on two boards from the newer', () => {
    const boards: NodeBoard[] = [
      { node: 'b', at: 900, shards: [1, 2], running: true, servers: 1, factories: [factory('f2', 3), factory('f1', 1)] },
      { node: 'a', at: 1000, shards: [0], running: true, servers: 1, factories: [factory('f1', 5)] },
    ];
    const o = clusterOverview(boards, 'a', 1200);
    expect(o.nodes).toEqual([
      { node: 'a', self: true, shards: [0], running: true, ageMs: 200, factories: 1, waitingTickets: 1, games: 5, openGames: 5 },
      { node: 'b', self: false, shards: [1, 2], running: true, ageMs: 300, factories: 2, waitingTickets: 2, games: 4, openGames: 4 },
    ]);
    expect(o.factories.map((f) => [f.name, f.node, f.games])).toEqual([
      ['f1', 'a', 5],
      ['f2', 'b', 3],
    ]);
  });
});
