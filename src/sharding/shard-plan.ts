import { rendezvousWeight } from './shard-of.js';

/** What every node reads from Redis before planning: who is alive, and who holds each shard now. */
export interface ShardView {
  readonly shardCount: number;
  /** Nodes whose heartbeat is current (in any order; duplicates are ignored). */
  readonly liveNodes: readonly string[];
  /** The holder of each shard's lease (index = shard), undefined when the lease is free. */
  readonly holders: readonly (string | undefined)[];
  /**
   * Shards with demand now (their factories had finds lately): spread evenly on their own, so
   * the few shards that carry the load do not land on one node. Absent or empty: by count only.
   */
  readonly hot?: ReadonlySet<number>;
}

/**
 * The owner each shard should have (index = shard; all undefined when no node is live).
 *
 * Balance: every live node gets ⌊S/N⌋ or ⌈S/N⌉ shards. Movement: the fewest shards change hands
 * that reach such a balance from the current holders: each node keeps as many of its shards as its
 * share allows (the ones it ranks highest by rendezvous weight), and the nodes allowed the extra
 * shard are the ones holding the most now. So a joining node takes only its share, and a dead or
 * leaving node's shards (and nothing else) move. The shards that must move (free ones, a dead
 * node's, a node's excess) go by rendezvous hashing among the nodes with room, strongest
 * preferences first, so every node that plans from the same view gets the same answer.
 *
 * The plan is sticky rather than a function of the live set alone because pure rendezvous or
 * consistent hashing cannot give both ±1 balance and minimal movement; the current holders are
 * read from the leases, which every node sees alike.
 */
export function planShards(view: ShardView): (string | undefined)[] {
  const shardCount = view.shardCount;
  const target: (string | undefined)[] = new Array<string | undefined>(shardCount).fill(undefined);
  const nodes = [...new Set(view.liveNodes)].sort();
  if (nodes.length === 0) return target;
  const weights = new Map<string, number>();
  const weight = (node: string, shard: number): number => {
    const key = `${shard}/${node}`;
    let w = weights.get(key);
    if (w === undefined) weights.set(key, (w = rendezvousWeight(node, shard)));
    return w;
  };
  const all = Array.from({ length: shardCount }, (_, shard) => shard);
  const hot = all.filter((shard) => view.hot?.has(shard));
  if (hot.length === 0 || hot.length === shardCount) {
    assign(all, evenQuotas(all, nodes, view.holders, shardCount), nodes, view.holders, weight, target);
    return target;
  }
  // The shards with demand spread evenly first (±1 each), then the idle ones fill every node to
  // ⌊S/N⌋ or ⌈S/N⌉ in all, the extra shards going first to the nodes with fewer hot ones.
  const hotQuota = evenQuotas(hot, nodes, view.holders, hot.length);
  assign(hot, hotQuota, nodes, view.holders, weight, target);
  const base = Math.floor(shardCount / nodes.length);
  const extra = shardCount % nodes.length;
  const fewestHotFirst = [...nodes].sort((a, b) => hotQuota.get(a)! - hotQuota.get(b)! || heldOf(b, all, view.holders) - heldOf(a, all, view.holders) || compare(a, b));
  const coldQuota = new Map<string, number>();
  fewestHotFirst.forEach((node, i) => coldQuota.set(node, Math.max(0, base + (i < extra ? 1 : 0) - hotQuota.get(node)!)));
  assign(
    all.filter((shard) => !view.hot?.has(shard)),
    coldQuota,
    nodes,
    view.holders,
    weight,
    target,
  );
  return target;
}

const heldOf = (node: string, shards: readonly number[], holders: readonly (string | undefined)[]): number => shards.filter((s) => holders[s] === node).length;

/** ⌊n/N⌋ or ⌈n/N⌉ of `shards` per node, the extra ones to the nodes holding the most of them now. */
function evenQuotas(shards: readonly number[], nodes: readonly string[], holders: readonly (string | undefined)[], n: number): Map<string, number> {
  const base = Math.floor(n / nodes.length);
  const extra = n % nodes.length;
  const held = new Map(nodes.map((node) => [node, heldOf(node, shards, holders)]));
  const mostHeldFirst = [...nodes].sort((a, b) => held.get(b)! - held.get(a)! || compare(a, b));
  return new Map(mostHeldFirst.map((node, i) => [node, base + (i < extra ? 1 : 0)]));
}

/**
 * Gives each of `shards` an owner in `target`, each node at most its quota: a node keeps as many
 * of its shards as its quota allows (the ones it ranks highest by rendezvous weight); the rest go
 * by rendezvous hashing among the nodes with room, strongest preferences first.
 */
function assign(
  shards: readonly number[],
  quota: ReadonlyMap<string, number>,
  nodes: readonly string[],
  holders: readonly (string | undefined)[],
  weight: (node: string, shard: number) => number,
  target: (string | undefined)[],
): void {
  const held = new Map<string, number[]>(nodes.map((n) => [n, []]));
  const loose: number[] = [];
  for (const shard of shards) {
    const holder = holders[shard];
    const mine = holder === undefined ? undefined : held.get(holder);
    if (mine) mine.push(shard);
    else loose.push(shard);
  }
  const room = new Map<string, number>();
  for (const node of nodes) {
    const share = quota.get(node) ?? 0;
    const mine = held.get(node)!;
    mine.sort((a, b) => weight(node, b) - weight(node, a) || a - b);
    for (const shard of mine.slice(0, share)) target[shard] = node;
    loose.push(...mine.slice(share));
    room.set(node, Math.max(0, share - mine.length));
  }
  const candidates: { node: string; shard: number; weight: number }[] = [];
  for (const node of nodes) {
    if (room.get(node)! === 0) continue;
    for (const shard of loose) candidates.push({ node, shard, weight: weight(node, shard) });
  }
  candidates.sort((a, b) => b.weight - a.weight || a.shard - b.shard || compare(a.node, b.node));
  for (const { node, shard } of candidates) {
    const left = room.get(node)!;
    if (left === 0 || target[shard] !== undefined) continue;
    target[shard] = node;
    room.set(node, left - 1);
  }
}

/** What one node does now to move toward the plan. */
export interface ShardMoves {
  /** Shards it holds that the plan gives another node: hand them over (drain, then release). */
  readonly release: readonly number[];
  /** Free shards the plan gives it: acquire their leases. */
  readonly acquire: readonly number[];
}

/**
 * A node only ever takes a free lease and only gives up its own, so nodes planning from slightly
 * different views cannot both own a shard: the lease decides, and the next plan agrees again.
 */
export function shardMoves(node: string, target: readonly (string | undefined)[], holders: readonly (string | undefined)[]): ShardMoves {
  const release: number[] = [];
  const acquire: number[] = [];
  target.forEach((owner, shard) => {
    const holder = holders[shard];
    if (holder === node && owner !== node) release.push(shard);
    else if (holder === undefined && owner === node) acquire.push(shard);
  });
  return { release, acquire };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
