/**
 * Progressive filling, the engine of the slot-grant policy (slot-grants.ts): each shard starts
 * from a given allocation (its running games by default), then the shard whose turn it is takes
 * slots on a server that hosts it and has room, until it reaches its cap or no such server is
 * left. Turns go by Sainte-Laguë/Webster's divisor, (total + ½) / weight, smallest first: plain
 * total/weight hands a lone slot to a light shard as readily as to a heavy one, and D'Hondt's
 * total + 1 favours heavy shards. With every server hosting every shard this is weighted max-min
 * fairness to within one slot. A turn takes the slots that bring it just past the next shard's
 * turn, so the work is about one heap step per slot handed out.
 */
import { IndexedHeap, type HeapItem } from '../collections/indexed-heap.js';

/** A server as the fill sees it. `index` is its position in the hosts array. */
export interface Host {
  readonly index: number;
  readonly serverId: string;
  readonly maxGames: number;
  readonly hosted: ReadonlySet<number>;
  readonly used: ReadonlyMap<number, number>;
  readonly committed: ReadonlyMap<number, number>;
  /** Slots held by games of shards it does not grant to (not hosted any more, or all when draining). */
  readonly held: number;
  /** The same shards' slots counting their committed grants too, which their owners may still use. */
  readonly pending: number;
}

/** shard → games granted on each host (index = host index). */
export type Allocation = Map<number, Int32Array>;

export const usedOf = (h: Host, shard: number): number => h.used.get(shard) ?? 0;
export const committedOf = (h: Host, shard: number): number => h.committed.get(shard) ?? 0;

export function totals(allocation: Allocation): Map<number, number> {
  return new Map([...allocation].map(([shard, byHost]) => [shard, byHost.reduce((a, b) => a + b, 0)]));
}

export interface FillOptions {
  /** Most slots a shard may end with (default: no cap). */
  readonly cap?: (shard: number) => number;
  /** Take slots back first on the hosts where the shard's committed grants were (keeps a kept round in place). */
  readonly stickyFirst?: boolean;
  /** Where to start (default: each shard's running games). */
  readonly from?: Allocation;
}

export function fill(hosts: readonly Host[], shards: readonly number[], weight: ReadonlyMap<number, number>, options: FillOptions = {}): Allocation {
  const cap = options.cap ?? (() => Infinity);
  const allocation: Allocation = new Map(shards.map((s) => [s, new Int32Array(hosts.length)]));
  const room = new Int32Array(hosts.length);
  for (const host of hosts) {
    let taken = host.held;
    for (const shard of host.hosted) {
      const n = options.from?.get(shard)?.[host.index] ?? usedOf(host, shard);
      allocation.get(shard)![host.index] = n;
      taken += n;
    }
    room[host.index] = Math.max(0, host.maxGames - taken);
  }
  const turns = new IndexedHeap<ShardTurn>((a, b) => a.key < b.key || (a.key === b.key && a.shard < b.shard));
  for (const shard of shards) {
    const eligible = hosts.filter((h) => h.hosted.has(shard));
    const given = allocation.get(shard)!;
    const total = eligible.reduce((n, h) => n + given[h.index]!, 0);
    turns.push(new ShardTurn(shard, weight.get(shard)!, total, eligible, options.stickyFirst === true));
  }
  for (let turn = turns.pop(); turn !== undefined; turn = turns.pop()) {
    const left = cap(turn.shard) - turn.total;
    if (left <= 0) continue;
    const next = turns.peek();
    const toPassNext = next === undefined ? Infinity : Math.floor(next.key * turn.weight - 0.5 - turn.total) + 1;
    const given = allocation.get(turn.shard)!;
    const host = turn.pick(room, given);
    if (host === undefined) continue; // no host with room hosts it: it keeps what it has
    const stickyLeft = turn.onSticky ? committedOf(host, turn.shard) - given[host.index]! : Infinity;
    const chunk = Math.max(1, Math.min(left, toPassNext, room[host.index]!, stickyLeft));
    given[host.index] = given[host.index]! + chunk;
    room[host.index] = room[host.index]! - chunk;
    turn.total += chunk;
    turns.push(turn);
  }
  return allocation;
}

class ShardTurn implements HeapItem {
  heapIndex = -1;
  /**
   * Hosts still with room, grouped by how many shards they host, fewest first: a slot there is
   * wanted by fewer others, so a shard uses those before the ones it must share. Within a group,
   * round-robin from a different server for each shard, to spread shards over servers.
   */
  private readonly groups: Host[][];
  private readonly cursors: number[];
  /** Hosts where the shard had committed grants above its running games: given back first. */
  private readonly sticky: Host[];
  private stickyCursor = 0;

  constructor(
    readonly shard: number,
    readonly weight: number,
    public total: number,
    hosts: readonly Host[],
    stickyFirst: boolean,
  ) {
    const start = hosts.length === 0 ? 0 : shard % hosts.length;
    const bySize = new Map<number, Host[]>();
    for (let i = 0; i < hosts.length; i++) {
      const host = hosts[(start + i) % hosts.length]!;
      const group = bySize.get(host.hosted.size);
      if (group) group.push(host);
      else bySize.set(host.hosted.size, [host]);
    }
    this.groups = [...bySize].sort(([a], [b]) => a - b).map(([, group]) => group);
    this.cursors = this.groups.map(() => 0);
    this.sticky = stickyFirst ? hosts.filter((h) => committedOf(h, shard) > usedOf(h, shard)) : [];
  }

  get key(): number {
    return (this.total + 0.5) / this.weight;
  }

  /** Whether the last pick was one of its committed hosts. */
  get onSticky(): boolean {
    return this.stickyCursor < this.sticky.length;
  }

  pick(room: Int32Array, given: Int32Array): Host | undefined {
    for (; this.stickyCursor < this.sticky.length; this.stickyCursor++) {
      const host = this.sticky[this.stickyCursor]!;
      if (room[host.index]! > 0 && given[host.index]! < committedOf(host, this.shard)) return host;
    }
    for (let g = 0; g < this.groups.length; g++) {
      const group = this.groups[g]!;
      while (group.length > 0) {
        if (this.cursors[g]! >= group.length) this.cursors[g] = 0;
        const host = group[this.cursors[g]!]!;
        if (room[host.index]! > 0) {
          this.cursors[g]!++;
          return host;
        }
        // Full for the rest of this fill (rooms only shrink): drop it in O(1), the last host taking its place.
        group[this.cursors[g]!] = group[group.length - 1]!;
        group.pop();
      }
    }
    return undefined;
  }
}
