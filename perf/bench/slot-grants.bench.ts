/**
 * One round of the slot-grant loop (servers' slots apportioned to the shards they host by demand)
 * over 1,000 and 10,000 servers of 100 slots and 64 shards, in two server types (every server
 * hosts 48 of the shards, two overlapping sets), under Zipf demand: `apportionSlots`
 * (src/sharding, water-filling per hosting class, no step per slot) against the earlier
 * `grantSlots` (src/placement, progressive filling, one heap step per slot), measured in the
 * same run. Each round starts from the grants the previous one handed out, with 5% of the games
 * ended, as the loop sees it.
 */
import { grantSlots, type ServerSlots } from '../../src/placement/slot-grants.js';
import { apportionSlots, type ServerSlotsNow, type ShardDemand } from '../../src/sharding/index.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

const SHARDS = 64;
const SLOTS = 100;

function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

function world(servers: number): { list: ServerSlotsNow[]; demand: Map<number, ShardDemand> } {
  const rand = random(servers);
  const typeA = Array.from({ length: 48 }, (_, i) => i);
  const typeB = Array.from({ length: 48 }, (_, i) => i + 16);
  const demand = new Map<number, ShardDemand>(Array.from({ length: SHARDS }, (_, s) => [s, { queued: Math.floor(200 / (s + 1)), perSecond: 20 / (s + 1) }]));
  const list = Array.from({ length: servers }, (_, i): ServerSlotsNow => {
    const shards = i % 2 === 0 ? typeA : typeB;
    const used = new Map<number, number>();
    for (let g = 0; g < SLOTS / 2; g++) {
      const shard = shards[Math.floor(rand() * shards.length)]!;
      used.set(shard, (used.get(shard) ?? 0) + 1);
    }
    return { serverId: `server-${i}`, maxGames: SLOTS, shards, used };
  });
  return { list, demand };
}

/** Mean ms per round over `rounds` rounds, each from the last one's grants with 5% of games ended. */
function roundMs(round: (servers: ServerSlotsNow[]) => ReadonlyMap<string, ReadonlyMap<number, number>>, start: ServerSlotsNow[], rounds: number): number {
  let servers = start;
  let total = 0;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const grants = round(servers);
    total += performance.now() - t;
    servers = servers.map((s, i) => {
      const used = new Map(s.used);
      const shard = s.shards[(i + r) % s.shards.length]!;
      if ((i + r) % 20 === 0 && (used.get(shard) ?? 0) > 0) used.set(shard, used.get(shard)! - 1);
      return { ...s, used, granted: grants.get(s.serverId) };
    });
  }
  return total / rounds;
}

const suite: BenchSuite = {
  name: 'slot-grants',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const group = 'slot-grant round, 100 slots × 64 shards per server (ms per round)';
    for (const servers of options.quick ? [1_000] : [1_000, 10_000]) {
      const { list, demand } = world(servers);
      const rounds = options.quick ? 2 : 3;
      const ours = roundMs((s) => apportionSlots(s, demand).grants, list, rounds);
      const before = roundMs((s) => grantSlots(s.map((x): ServerSlots => ({ ...x, committed: x.granted })), demand).grants, list, rounds);
      rows.push({ group, subject: 'apportionSlots (water-fill per class)', n: servers, metric: 'ms', value: ours, higherIsBetter: false });
      rows.push({ group, subject: 'grantSlots (heap step per slot)', n: servers, metric: 'ms', value: before, higherIsBetter: false });
    }
    return rows;
  },
};

export default suite;
