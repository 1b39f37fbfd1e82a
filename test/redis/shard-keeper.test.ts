/**
 * The shard keeper (membership + leases + plan) with several nodes in this process on one
 * redis-server and on a 3-master Redis Cluster: balance, a join that moves only the newcomer's
 * share, a crash taken over within 3 s while the other shards never pause, a clean stop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ShardKeeper, memberKeys, shardKeys } from '../../src/redis/shards/index.js';
import { hasRedis, redisTargets, type RedisTarget } from './redis-targets.js';

const SHARDS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let run = 0;

interface Node {
  readonly keeper: ShardKeeper;
  readonly gained: number[];
  readonly lost: { shard: number; reason: string }[];
}

async function clear(target: RedisTarget): Promise<void> {
  const client = target.client();
  for (const key of [memberKeys.nodes, memberKeys.shardCount]) await client.del(key);
  for (let shard = 0; shard < SHARDS; shard++) for (const key of Object.values(shardKeys(shard))) await client.del(key);
}

/** Polls until `done` holds, checking on every poll that no shard has two owners. */
async function until(nodes: readonly Node[], done: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const owners = nodes.flatMap((n) => [...n.keeper.ownedShards().keys()]);
    expect(new Set(owners).size, 'a shard owned twice').toBe(owners.length);
    if (done()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not settled after ${timeoutMs} ms: ${nodes.map((n) => `${n.keeper.nodeId}=${n.keeper.ownedShards().size}`).join(' ')}`);
    await sleep(25);
  }
}

function forgetEvents(nodes: readonly Node[]): void {
  for (const n of nodes) {
    n.gained.length = 0;
    n.lost.length = 0;
  }
}

const counts = (nodes: readonly Node[]) => nodes.map((n) => n.keeper.ownedShards().size);

describe.each(redisTargets())('shard keeper on $name', (target) => {
  const open: Node[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((n) => n.keeper.close()));
  });

  async function start(name: string): Promise<Node> {
    const node: Node = { gained: [], lost: [], keeper: undefined as unknown as ShardKeeper };
    const keeper = await ShardKeeper.open(target.client(), {
      nodeId: `${name}-${run}`,
      shardCount: SHARDS,
      hooks: { gained: (shard) => node.gained.push(shard), lost: (shard, _, reason) => node.lost.push({ shard, reason }) },
    });
    Object.assign(node, { keeper });
    open.push(node);
    return node;
  }

  const needRedis = async (ctx: { skip: (note?: string) => void }) => {
    if (!hasRedis) ctx.skip('redis-server is not installed');
    run++;
    await clear(target);
  };

  it('shards with demand spread over the nodes: two busy shards of one node, one moves to the other', async (ctx) => {
    await needRedis(ctx);
    const nodes = [await start('a'), await start('b')];
    await until(nodes, () => counts(nodes).every((c) => c === 6), 8000);
    // Two shards of a's are busy (finds on either node mark them): the plan gives b one of them.
    const busy = [...nodes[0]!.keeper.ownedShards().keys()].slice(0, 2);
    for (const shard of busy) nodes[1]!.keeper.demand(shard);
    const owner = (shard: number) => nodes.findIndex((n) => n.keeper.ownedShards().has(shard));
    await until(nodes, () => new Set(busy.map(owner)).size === 2 && counts(nodes).every((c) => c === 6), 8000);
  });

  it('three nodes own 4 shards each; a fourth joins and takes 3, the only shards that move', async (ctx) => {
    await needRedis(ctx);
    const first = [await start('a'), await start('b'), await start('c')];
    await until(first, () => counts(first).every((c) => c === 4), 8000);
    const before = first.map((n) => new Set(n.keeper.ownedShards().keys()));
    forgetEvents(first); // the first node took every shard until the others joined
    const all = [...first, await start('d')];
    await until(all, () => counts(all).every((c) => c === 3), 8000);
    expect(all[3]!.gained).toHaveLength(3);
    expect(first.map((n) => n.gained.length)).toEqual([0, 0, 0]);
    expect(first.flatMap((n) => n.lost.map((l) => l.reason))).toEqual(new Array(3).fill('the plan gives it to another node'));
    first.forEach((n, i) => {
      for (const shard of n.keeper.ownedShards().keys()) expect(before[i]!.has(shard)).toBe(true);
    });
  });

  it("a crashed node's shards are taken over within 3 s, and the other shards never change hands", async (ctx) => {
    await needRedis(ctx);
    const nodes = [await start('a'), await start('b'), await start('c')];
    await until(nodes, () => counts(nodes).every((c) => c === 4), 8000);
    const [survivorA, survivorB, crashed] = nodes as [Node, Node, Node];
    const kept = [survivorA, survivorB].map((n) => new Map(n.keeper.ownedShards()));
    forgetEvents(nodes);
    crashed.keeper.halt(); // no release, no leave: its leases and heartbeat run out
    const tookMs = await until([survivorA, survivorB], () => counts([survivorA, survivorB]).reduce((a, b) => a + b) === SHARDS, 5000);
    expect(tookMs).toBeLessThanOrEqual(3000);
    expect(counts([survivorA, survivorB]).sort()).toEqual([6, 6]);
    [survivorA, survivorB].forEach((n, i) => {
      expect(n.lost).toEqual([]);
      for (const [shard, token] of kept[i]!) expect(n.keeper.tokenOf(shard)).toBe(token); // same term throughout
    });
  });

  it('a shard its seat gave up (a write Redis failed) is taken again within a tick, under a larger token', async (ctx) => {
    await needRedis(ctx);
    const node = await start('a');
    await until([node], () => node.keeper.ownedShards().size === SHARDS, 8000);
    forgetEvents([node]);
    const token = node.keeper.tokenOf(3)!;
    node.keeper.relinquish(3, token + 1, 'a step could not be written'); // not this term's token: nothing happens
    expect(node.keeper.tokenOf(3)).toBe(token);
    node.keeper.relinquish(3, token, 'a step could not be written');
    expect(node.lost).toEqual([{ shard: 3, reason: 'a step could not be written' }]);
    expect(node.keeper.tokenOf(3)).toBeUndefined();
    const tookMs = await until([node], () => node.keeper.tokenOf(3) !== undefined, 3000);
    expect(tookMs).toBeLessThan(node.keeper.leaseMs); // released, not left to lapse
    expect(node.keeper.tokenOf(3)).toBeGreaterThan(token);
    expect(node.gained).toEqual([3]);
  });

  it('a clean stop hands its shards over at once, without waiting for its lease to run out', async (ctx) => {
    await needRedis(ctx);
    const nodes = [await start('a'), await start('b')];
    await until(nodes, () => counts(nodes).every((c) => c === 6), 8000);
    forgetEvents(nodes);
    const leaving = open.pop()!;
    await leaving.keeper.close();
    expect(leaving.lost.map((l) => l.reason)).toEqual(new Array(6).fill('node stopping'));
    const tookMs = await until([nodes[0]!], () => nodes[0]!.keeper.ownedShards().size === SHARDS, 3000);
    expect(tookMs).toBeLessThan(nodes[0]!.keeper.leaseMs); // one tick, not a lapsed lease
  });
});
