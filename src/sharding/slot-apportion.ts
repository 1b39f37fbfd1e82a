/**
 * A server's slots apportioned to the shards it hosts by demand, one round of the slow grant loop
 * (Battle.net talk, 2nd attempt: "slots apportioned to factories by popularity"). A grant is the
 * most games (running and starting) a shard's owner may have on that server; the node holding the
 * server's stream hands the grants out and refuses an order beyond them (ServerShards), so it is
 * the one ledger of each server's slots.
 *
 * One round:
 * 1. Weight of a shard: max(floor 0.2, queued + perSecond × horizon 5 s). An idle shard keeps a
 *    small share and regains slots as soon as demand shows. A shard with creations queued and no
 *    slot in a class gets one there before the rest is shared by weight (while the class has a
 *    slot for each such shard): by weight alone, two queued finds beside a factory taking
 *    thousands a second came to a small fraction of a slot, rounded to none, and waited until
 *    the busy factory went quiet (19 s in the scale-out bench).
 * 2. Fair share: servers hosting the same set of shards form a class; classes hosting fewer
 *    shards go first (their slots can serve fewer shards). In each class the free slots are
 *    water-filled (water-fill.ts) over the shards it hosts, from their running games plus what
 *    earlier classes gave them. One class (every server hosts the same shards): weighted max-min
 *    fair to one slot. Several classes: a greedy, each class max-min fair given the earlier ones.
 * 3. Stability: while every shard's committed total is within `tolerance` (10%, or one slot) of
 *    its continuous fair share, plus what rounding to whole slots costs this round, committed
 *    grants stay and only slots nobody holds are water-filled; otherwise the round moves to the
 *    fair shares (which it then keeps). So a demand that wobbles by less than the tolerance
 *    moves nothing once the grants have settled on a fair allocation.
 * 4. Two-phase: a slot taken from one shard is given to another only in a later round, so the
 *    owner it was taken from has been told before anyone else may use it; whatever mix of old and
 *    new grants the owners honour, a server's games fit in its max games.
 *
 * Cost: O(Σ shards hosted per server + classes × shards log shards): no step per slot.
 */
import { waterLevel } from './water-fill.js';

export interface ServerSlotsNow {
  readonly serverId: string;
  readonly maxGames: number;
  /** The shards it hosts (those with a factory its attributes allow). */
  readonly shards: readonly number[];
  /** Games running or starting on it, per shard (a shard it no longer hosts included). */
  readonly used: ReadonlyMap<number, number>;
  /** The grants handed out last, which their owners may still use. Absent: none yet. */
  readonly granted?: ReadonlyMap<number, number>;
}

export interface ShardDemand {
  /** Creations or tickets waiting now. */
  readonly queued: number;
  /** Recent finds (or creations) per second. */
  readonly perSecond: number;
}

export interface ApportionOptions {
  /** How far ahead a round's grants must last: about the loop's period. Default 5 s. */
  readonly horizonSeconds?: number;
  /** Smallest weight of any shard (an idle one), in expected finds over the horizon. Default 0.2 (DEFAULT_FLOOR_WEIGHT). */
  readonly floorWeight?: number;
  /** Committed grants stay while each shard is within this share of its fair share (or one slot), plus the rounding to whole slots. Default 0.1. */
  readonly tolerance?: number;
}

export interface Apportioned {
  /** serverId → shard → the most games its owner may have there (every hosted shard listed). */
  readonly grants: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** Each shard's fair share of all the servers' slots in whole slots (what its grants converge to). */
  readonly fairShare: ReadonlyMap<number, number>;
  /** The same before rounding to whole slots: grants stay while within the tolerance of it. */
  readonly idealShare: ReadonlyMap<number, number>;
  /** False when every grant stayed as it was. */
  readonly changed: boolean;
}

/**
 * An idle shard's weight: a fifth of a find per horizon. Small, so that twenty idle shards on a
 * server weigh as much as four expected finds and a busy shard gets most of the slots; not zero,
 * so an idle shard keeps a slot where there are spare ones, and regains slots within two rounds
 * of its demand showing.
 */
export const DEFAULT_FLOOR_WEIGHT = 0.2;

/** The tolerance never below one slot (with the rounding allowance, a settled allocation rides out a wobble of a few % in demand; property-tested). */
export const MIN_TOLERANCE_SLOTS = 1;

interface Server {
  readonly id: string;
  readonly hosted: readonly number[];
  /** max games less the games of shards it does not host. */
  readonly capacity: number;
  readonly used: Int32Array;
  /** max(granted, used), clamped so they fit the capacity (a server that shrank). */
  readonly committed: Int32Array;
  readonly granted: ReadonlyMap<number, number>;
  /** Slots no grant or game covers (two-phase: what was taken this round is not in here). */
  free: number;
}

export function apportionSlots(servers: readonly ServerSlotsNow[], demand: ReadonlyMap<number, ShardDemand>, options: ApportionOptions = {}): Apportioned {
  const horizon = options.horizonSeconds ?? 5;
  const floorWeight = options.floorWeight ?? DEFAULT_FLOOR_WEIGHT;
  const tolerance = options.tolerance ?? 0.1;
  if (!(horizon >= 0)) throw new RangeError(`horizonSeconds must be >= 0, got ${horizon}`);
  if (!(floorWeight > 0)) throw new RangeError(`floorWeight must be > 0, got ${floorWeight}`);
  if (!(tolerance >= 0)) throw new RangeError(`tolerance must be >= 0, got ${tolerance}`);
  const queuedOf = (shard: number): number => demand.get(shard)?.queued ?? 0;
  const weightOf = (shard: number): number => {
    const d = demand.get(shard);
    if (d === undefined) return floorWeight;
    if (!(d.queued >= 0 && d.perSecond >= 0)) throw new RangeError(`demand of shard ${shard}: queued and perSecond must be >= 0`);
    return Math.max(floorWeight, d.queued + d.perSecond * horizon);
  };

  const classes = classesOf(servers.map(toServer));
  const fair = shares(classes, weightOf, queuedOf, (s) => s.used, (s) => s.capacity - sum(s.used));
  const committedTotal = new Map<number, number>();
  for (const c of classes) {
    const sums = new Array<number>(c.hosted.length).fill(0);
    for (const s of c.servers) for (let i = 0; i < sums.length; i++) sums[i]! += s.committed[i]!;
    c.hosted.forEach((shard, i) => committedTotal.set(shard, (committedTotal.get(shard) ?? 0) + sums[i]!));
  }
  // Against the continuous fair share, allowing this round's rounding to whole slots: a rounding
  // that tips one slot over does not move grants, and the fair allocation itself is always kept.
  // A shard with creations queued and no slot is never within it, though one slot is: its
  // players would wait, however long the others' demand lasts.
  const withinTolerance = (totals: ReadonlyMap<number, number>) =>
    [...fair.ideal].every(
      ([shard, ideal]) =>
        Math.abs((totals.get(shard) ?? 0) - ideal) <= Math.max(MIN_TOLERANCE_SLOTS, tolerance * ideal) + Math.abs(fair.total.get(shard)! - ideal) &&
        !((totals.get(shard) ?? 0) === 0 && fair.total.get(shard)! > 0 && queuedOf(shard) > 0),
    );
  // Kept: committed grants stay and only slots nobody holds are shared out, unless sharing them
  // out that way tips a shard past the tolerance (the next round would move it back, and the one
  // after hand the slots taken to others: settled in 3 rounds instead of 4, property-tested).
  const kept = withinTolerance(committedTotal) ? shares(classes, weightOf, queuedOf, (s) => s.committed, (s) => s.free) : undefined;
  const target = kept && withinTolerance(kept.total) ? kept.byClass : fair.byClass;

  const grants = new Map<string, Map<number, number>>();
  let changed = false;
  classes.forEach((c, k) => {
    const goal = target[k]!;
    const given = c.servers.map((s) => Int32Array.from(s.committed));
    const need = goal.slice();
    for (const s of c.servers) for (let i = 0; i < need.length; i++) need[i]! -= s.committed[i]!;
    // Shrink first (down to the games that run), then grow into slots free under every commitment.
    need.forEach((n, i) => {
      for (let v = c.servers.length - 1; v >= 0 && n < 0; v--) {
        const cut = Math.min(-n, given[v]![i]! - c.servers[v]!.used[i]!);
        given[v]![i]! -= cut;
        n += cut;
      }
    });
    // One pass over the class's servers for all its shards (each full server is left behind).
    let v = 0;
    need.forEach((n, i) => {
      while (n > 0 && v < c.servers.length) {
        const s = c.servers[v]!;
        const take = Math.min(n, s.free);
        given[v]![i]! += take;
        s.free -= take;
        n -= take;
        if (s.free === 0) v++;
      }
    });
    c.servers.forEach((s, at) => {
      const out = new Map<number, number>();
      const mine = given[at]!;
      for (let i = 0; i < s.hosted.length; i++) {
        out.set(s.hosted[i]!, mine[i]!);
        changed ||= mine[i]! !== (s.granted.get(s.hosted[i]!) ?? 0);
      }
      // A grant to a shard it does not host any more is withdrawn.
      if (!changed) for (const [shard, n] of s.granted) changed ||= n > 0 && !out.has(shard);
      grants.set(s.id, out);
    });
  });
  return { grants, fairShare: fair.total, idealShare: fair.ideal, changed };
}

interface Class {
  readonly hosted: readonly number[];
  readonly servers: Server[];
}

function toServer(server: ServerSlotsNow): Server {
  if (!Number.isInteger(server.maxGames) || server.maxGames < 0) throw new RangeError(`servers["${server.serverId}"].maxGames must be an integer >= 0, got ${server.maxGames}`);
  const granted = server.granted ?? new Map<number, number>();
  for (const [what, map] of [['used', server.used], ['granted', granted]] as const) {
    for (const [shard, n] of map) if (!Number.isInteger(n) || n < 0) throw new RangeError(`servers["${server.serverId}"].${what}[${shard}] must be an integer >= 0, got ${n}`);
  }
  const hosted = ascending(server.shards) ? server.shards : [...new Set(server.shards)].sort((a, b) => a - b);
  const hostedSet = new Set(hosted);
  let held = 0;
  for (const [shard, n] of server.used) if (!hostedSet.has(shard)) held += n;
  const capacity = Math.max(0, server.maxGames - held);
  const used = new Int32Array(hosted.length);
  const committed = new Int32Array(hosted.length);
  for (let i = 0; i < hosted.length; i++) {
    used[i] = server.used.get(hosted[i]!) ?? 0;
    committed[i] = Math.max(granted.get(hosted[i]!) ?? 0, used[i]!);
  }
  const promised = sum(committed);
  const free = Math.max(0, capacity - promised);
  // A server that shrank: grants above the running games are cut until they fit (cutting is always safe).
  for (let i = hosted.length - 1, over = promised - Math.max(capacity, sum(used)); i >= 0 && over > 0; i--) {
    const cut = Math.min(over, committed[i]! - used[i]!);
    committed[i]! -= cut;
    over -= cut;
  }
  return { id: server.serverId, hosted, capacity, used, committed, granted, free };
}

/** Servers grouped by the set of shards they host, classes hosting fewer shards first. */
function classesOf(servers: readonly Server[]): Class[] {
  const byKey = new Map<string, Class>();
  const ids = new Set<string>();
  for (const s of servers) {
    if (ids.has(s.id)) throw new RangeError(`servers: "${s.id}" is listed twice`);
    ids.add(s.id);
    const key = s.hosted.join(',');
    const c = byKey.get(key);
    if (c) c.servers.push(s);
    else byKey.set(key, { hosted: s.hosted, servers: [s] });
  }
  // Servers keep the caller's order within a class (no sort: a round stays linear in servers).
  return [...byKey.entries()].sort(([ka, a], [kb, b]) => a.hosted.length - b.hosted.length || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([, c]) => c);
}

/**
 * Each class's slots water-filled over its shards, from `floor` (what each server holds) plus
 * what earlier classes gave each shard: per class, each hosted shard's total there. A shard with
 * creations queued and nothing yet starts from one slot, if the class has one for each such shard.
 */
function shares(
  classes: readonly Class[],
  weightOf: (shard: number) => number,
  queuedOf: (shard: number) => number,
  floor: (s: Server) => Int32Array,
  room: (s: Server) => number,
): { byClass: number[][]; total: Map<number, number>; ideal: Map<number, number> } {
  const total = new Map<number, number>();
  const ideal = new Map<number, number>();
  const byClass = classes.map((c) => {
    const floors = new Array<number>(c.hosted.length).fill(0);
    for (const s of c.servers) {
      const held = floor(s);
      for (let i = 0; i < floors.length; i++) floors[i]! += held[i]!;
    }
    const room0 = c.servers.reduce((n, s) => n + Math.max(0, room(s)), 0);
    const held = c.hosted.map((shard, i) => (total.get(shard) ?? 0) + floors[i]!);
    const starved = c.hosted.map((shard, i): number => (held[i] === 0 && queuedOf(shard) > 0 ? 1 : 0));
    const starting = starved.reduce((a, b) => a + b, 0);
    const first = starting <= room0 ? starved : starved.map(() => 0);
    const slots = room0 - (starting <= room0 ? starting : 0);
    const bases = held.map((h, i) => h + first[i]!);
    const weights = c.hosted.map(weightOf);
    const { extras, level } = waterLevel(bases, weights, c.hosted.length === 0 ? 0 : slots);
    return c.hosted.map((shard, i) => {
      const mine = floors[i]! + first[i]! + extras[i]!;
      total.set(shard, (total.get(shard) ?? 0) + mine);
      ideal.set(shard, (ideal.get(shard) ?? 0) + floors[i]! + first[i]! + (slots > 0 ? Math.max(0, level * weights[i]! - bases[i]!) : 0));
      return mine;
    });
  });
  return { byClass, total, ideal };
}

const ascending = (list: readonly number[]): boolean => {
  for (let i = 1; i < list.length; i++) if (!(list[i - 1]! < list[i]!)) return false;
  return true;
};

const sum = (values: Int32Array): number => values.reduce((a, b) => a + b, 0);
