/**
 * Slot grants: each server's slots apportioned to shards of factories by demand, on a slow control
 * loop (Battle.net talk, "Queueing and Distribution", 2nd attempt: "allow servers to advertise the
 * number of games they can take; slots apportioned to factories by popularity; queue can be
 * distributed across hardware"). A shard's owner then places games on the slots granted to it
 * without asking anyone: a grant is the most games (running and starting) the shard may have on
 * that server.
 *
 * The rule, one round:
 * 1. Weight: a shard's demand over the loop's horizon, queued creations + recent rate × horizon,
 *    never below a floor, so a quiet shard keeps a slot or so to start on.
 * 2. Fair share: weighted max-min fairness with each shard's running games as its floor and each
 *    server's eligibility respected (a server only hosts the shards whose factories its attributes
 *    allow): slots are handed out in turn to the shard with the fewest slots per unit of weight
 *    (slot-grants-fill.ts). Exact to one slot when every server hosts every shard; with partial
 *    hosting a greedy approximation (servers hosting fewer shards are used first).
 *    A shard whose running games already exceed its share keeps them; the rest share what is left.
 * 3. Stability: while every shard's committed grants are within `tolerance` of its fair share, the
 *    round keeps them where they are (demand that wobbles moves nothing) and only hands out slots
 *    no grant covers (a server that joined or grew); otherwise it moves to the fair allocation.
 * 4. Safety, two-phase: an owner may use its old grant until it acknowledges the new one, so a slot
 *    taken from one shard is given to another only in a later round, after that acknowledgement.
 *    On every server, whatever mix of old and new grants the owners honour, the games they may
 *    have add up to at most its max games (or to what already runs, if it shrank below that).
 * A draining server, and a shard a server no longer hosts, get no grant; their games run on.
 */
import { committedOf, fill, totals, usedOf, type Host } from './slot-grants-fill.js';

export interface ServerSlots {
  readonly serverId: string;
  readonly maxGames: number;
  /** Shards this server can host: those with a factory its attributes allow. */
  readonly shards: readonly number[];
  /** Games running or starting on it, per shard, as last reported. */
  readonly used: ReadonlyMap<number, number>;
  /** The grants the shards' owners acknowledged last: each may use up to these until it acknowledges new ones. */
  readonly committed?: ReadonlyMap<number, number>;
  /** Takes no new games: its grants go to nothing while its games finish. */
  readonly draining?: boolean;
}

export interface ShardDemand {
  /** Game creations waiting for a slot now. */
  readonly queued: number;
  /** Recent creations per second (e.g. a DecayingRate's perSecond). */
  readonly perSecond: number;
}

export interface SlotGrantOptions {
  /** How far ahead a round's grants must last: about the loop's period. Default 5 s. */
  readonly horizonSeconds?: number;
  /** Smallest weight of any shard a server can host. Default 1. */
  readonly floorWeight?: number;
  /** Committed grants are kept while each shard is within this share of its fair share (or one slot). Default 0.1. */
  readonly tolerance?: number;
}

export interface SlotGrants {
  /** serverId → shard → the most games the shard's owner may have there. Every hosted shard is listed (0 included). */
  readonly grants: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** Each shard's fair share of all slots, in games: what its grants converge to. */
  readonly fairShare: ReadonlyMap<number, number>;
  /** False when the round kept every committed grant. */
  readonly changed: boolean;
}

export function grantSlots(servers: readonly ServerSlots[], demand: ReadonlyMap<number, ShardDemand>, options: SlotGrantOptions = {}): SlotGrants {
  const horizon = options.horizonSeconds ?? 5;
  const floorWeight = options.floorWeight ?? 1;
  const tolerance = options.tolerance ?? 0.1;
  if (!(horizon >= 0)) throw new RangeError(`horizonSeconds must be >= 0, got ${horizon}`);
  if (!(floorWeight > 0)) throw new RangeError(`floorWeight must be > 0, got ${floorWeight}`);
  if (!(tolerance >= 0)) throw new RangeError(`tolerance must be >= 0, got ${tolerance}`);
  const hosts = hostsOf(servers);

  const shards = [...new Set(hosts.flatMap((h) => [...h.hosted]))].sort((a, b) => a - b);
  const weight = new Map<number, number>();
  for (const shard of shards) {
    const d = demand.get(shard);
    if (d !== undefined && !(d.queued >= 0 && d.perSecond >= 0)) throw new RangeError(`demand of shard ${shard}: queued and perSecond must be >= 0`);
    weight.set(shard, Math.max(floorWeight, (d?.queued ?? 0) + (d?.perSecond ?? 0) * horizon));
  }

  const fairAllocation = fill(hosts, shards, weight);
  const fair = totals(fairAllocation);
  const committedTotal = new Map<number, number>(shards.map((s) => [s, 0]));
  for (const host of hosts) for (const s of host.hosted) committedTotal.set(s, committedTotal.get(s)! + Math.max(committedOf(host, s), usedOf(host, s)));
  const keep = shards.every((s) => Math.abs(committedTotal.get(s)! - fair.get(s)!) <= Math.max(1, tolerance * fair.get(s)!));
  const toward = keep
    ? fill(hosts, shards, weight, { from: fill(hosts, shards, weight, { cap: (s) => committedTotal.get(s)!, stickyFirst: true }) })
    : fairAllocation;

  const grants = new Map<string, Map<number, number>>();
  let changed = false;
  for (const host of hosts) {
    const granted = new Map<number, number>();
    // Slots another shard may still use under its committed grant are not free yet (two-phase).
    let allowance = host.maxGames - host.pending;
    for (const s of host.hosted) allowance -= Math.max(committedOf(host, s), usedOf(host, s));
    allowance = Math.max(0, allowance);
    for (const shard of [...host.hosted].sort((a, b) => a - b)) {
      const wanted = toward.get(shard)![host.index]!;
      const already = Math.max(committedOf(host, shard), usedOf(host, shard));
      const extra = Math.min(Math.max(0, wanted - already), allowance);
      allowance -= extra;
      granted.set(shard, wanted > already ? already + extra : wanted);
    }
    for (const shard of new Set([...granted.keys(), ...host.committed.keys()])) changed ||= (granted.get(shard) ?? 0) !== committedOf(host, shard);
    grants.set(host.serverId, granted);
  }
  return { grants, fairShare: fair, changed };
}

function hostsOf(servers: readonly ServerSlots[]): Host[] {
  const seen = new Set<string>();
  return [...servers]
    .sort((a, b) => (a.serverId < b.serverId ? -1 : a.serverId > b.serverId ? 1 : 0))
    .map((server, index) => {
      if (seen.has(server.serverId)) throw new RangeError(`servers: "${server.serverId}" is listed twice`);
      seen.add(server.serverId);
      if (!Number.isInteger(server.maxGames) || server.maxGames < 0) throw new RangeError(`servers["${server.serverId}"].maxGames must be an integer >= 0, got ${server.maxGames}`);
      const committed = server.committed ?? new Map<number, number>();
      for (const [what, map] of [['used', server.used], ['committed', committed]] as const) {
        for (const [shard, n] of map) {
          if (!Number.isInteger(n) || n < 0) throw new RangeError(`servers["${server.serverId}"].${what}[${shard}] must be an integer >= 0, got ${n}`);
        }
      }
      const hosted = new Set(server.draining ? [] : server.shards);
      let held = 0;
      let pending = 0;
      for (const shard of new Set([...server.used.keys(), ...committed.keys()])) {
        if (hosted.has(shard)) continue;
        held += server.used.get(shard) ?? 0;
        pending += Math.max(server.used.get(shard) ?? 0, committed.get(shard) ?? 0);
      }
      return { index, serverId: server.serverId, maxGames: server.maxGames, hosted, used: server.used, committed, held, pending };
    });
}
