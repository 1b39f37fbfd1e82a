import { defineCase } from '../case.js';
import { apportionSlots, type ServerSlotsNow, type ShardDemand } from '../../../src/sharding/index.js';

/**
 * Sharding budgets: one round of the slot-grant loop (src/sharding/slot-apportion.ts) is linear
 * in servers for a fixed number of shards hosted per server (budget: O(servers ×
 * shards hosted), not worse), with no step per slot: n servers of 64 slots, each hosting 16 of 64
 * shards in one of 4 hosting sets, games running, grants handed out by the round before.
 */

const SHARDS = 64;
const HOSTED = 16;
const demand = new Map<number, ShardDemand>(Array.from({ length: SHARDS }, (_, s) => [s, { queued: s % 5, perSecond: 8 / (s + 1) }]));

export default [
  defineCase({
    name: 'sharding: one slot-grant round over n servers (16 shards hosted each)',
    budget: 'O(n)',
    minLog2: 6,
    maxLog2: 12,
    setup(n) {
      const sets = Array.from({ length: 4 }, (_, k) => Array.from({ length: HOSTED }, (_, i) => (k * 12 + i) % SHARDS).sort((a, b) => a - b));
      let servers = Array.from({ length: n }, (_, k): ServerSlotsNow => {
        const shards = sets[k % sets.length]!;
        const used = new Map<number, number>();
        for (let g = 0; g < 24; g++) used.set(shards[(k + g * 7) % HOSTED]!, (used.get(shards[(k + g * 7) % HOSTED]!) ?? 0) + 1);
        return { serverId: `server-${k}`, maxGames: 64, shards, used };
      });
      const first = apportionSlots(servers, demand);
      servers = servers.map((s) => ({ ...s, granted: first.grants.get(s.serverId) }));
      return servers;
    },
    run(servers) {
      return apportionSlots(servers, demand).fairShare.size;
    },
  }),
];
