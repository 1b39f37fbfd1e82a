import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grantSlots, type ServerSlots, type ShardDemand, type SlotGrants } from '../../src/placement/slot-grants.js';

const SHARDS = [0, 1, 2, 3, 4, 5];

const counts = (max: number) => fc.array(fc.integer({ min: 0, max }), { minLength: SHARDS.length, maxLength: SHARDS.length });
const toMap = (values: readonly number[], keep: (shard: number) => boolean = () => true) =>
  new Map(values.flatMap((n, shard) => (n > 0 && keep(shard) ? [[shard, n] as [number, number]] : [])));

/** Any servers: partial hosting, running games beyond max, committed grants of any size, draining. */
const anyServers = fc.array(
  fc.record({ maxGames: fc.integer({ min: 0, max: 40 }), hosted: fc.subarray(SHARDS), used: counts(15), committed: counts(30), draining: fc.boolean() }),
  { minLength: 1, maxLength: 8 },
).map((list) =>
  list.map(
    (s, i): ServerSlots => ({
      serverId: `s${i}`,
      maxGames: s.maxGames,
      shards: s.hosted,
      used: toMap(s.used),
      committed: toMap(s.committed),
      draining: s.draining && i % 3 === 0,
    }),
  ),
);

const anyDemand = fc
  .array(fc.record({ queued: fc.integer({ min: 0, max: 60 }), perSecond: fc.double({ min: 0, max: 20, noNaN: true }) }), { minLength: SHARDS.length, maxLength: SHARDS.length })
  .map((list) => new Map<number, ShardDemand>(list.map((d, shard) => [shard, d])));

/** The next round as the owners see it: every grant acknowledged, the same games running. */
function acknowledged(servers: readonly ServerSlots[], round: SlotGrants): ServerSlots[] {
  return servers.map((s) => ({ ...s, committed: round.grants.get(s.serverId) ?? new Map() }));
}

function settle(servers: ServerSlots[], demand: ReadonlyMap<number, ShardDemand>): { servers: ServerSlots[]; rounds: number; last: SlotGrants } {
  for (let rounds = 1; rounds <= 6; rounds++) {
    const round = grantSlots(servers, demand);
    servers = acknowledged(servers, round);
    if (!round.changed) return { servers, rounds, last: round };
  }
  throw new Error('grants did not settle within 6 rounds');
}

const shardTotal = (round: SlotGrants, shard: number) => [...round.grants.values()].reduce((n, g) => n + (g.get(shard) ?? 0), 0);

describe('slot grants (property tests)', () => {
  it('no slot is promised twice: whatever mix of old and new grants the owners honour fits on the server', () => {
    fc.assert(
      fc.property(anyServers, anyDemand, (servers, demand) => {
        const round = grantSlots(servers, demand);
        for (const server of servers) {
          const granted = round.grants.get(server.serverId)!;
          const shards = new Set([...granted.keys(), ...server.used.keys(), ...(server.committed?.keys() ?? [])]);
          let honoured = 0; // each owner may use the larger of its old and new grant until it acknowledges
          let before = 0;
          for (const shard of shards) {
            const used = server.used.get(shard) ?? 0;
            const old = server.committed?.get(shard) ?? 0;
            honoured += Math.max(granted.get(shard) ?? 0, old, used);
            before += Math.max(old, used);
          }
          expect(honoured).toBeLessThanOrEqual(Math.max(server.maxGames, before));
          for (const [shard, grant] of granted) {
            expect(server.shards.includes(shard) && !server.draining).toBe(true); // only hosted shards, none when draining
            expect(grant).toBeGreaterThanOrEqual(server.used.get(shard) ?? 0); // never below what runs
          }
          if (server.draining) expect(granted.size).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('with every server hosting every shard, fair shares are weighted max-min fair to within one slot', () => {
    const fullServers = fc.array(fc.record({ maxGames: fc.integer({ min: 0, max: 60 }), used: counts(12) }), { minLength: 1, maxLength: 8 }).map((list) =>
      list.map((s, i): ServerSlots => {
        // running games fit on the server (a shrunk server is covered by the safety property)
        const used = [...s.used];
        let over = used.reduce((a, b) => a + b, 0) - s.maxGames;
        for (let k = 0; over > 0; k = (k + 1) % used.length) if (used[k]! > 0) (used[k]!--, over--);
        return { serverId: `s${i}`, maxGames: s.maxGames, shards: SHARDS, used: toMap(used) };
      }),
    );
    fc.assert(
      fc.property(fullServers, anyDemand, (servers, demand) => {
        const { fairShare } = grantSlots(servers, demand);
        const weight = (s: number) => Math.max(1, demand.get(s)!.queued + demand.get(s)!.perSecond * 5);
        const floor = (s: number) => servers.reduce((n, x) => n + (x.used.get(s) ?? 0), 0);
        const capacity = servers.reduce((n, x) => n + x.maxGames, 0);
        // Water level λ: Σ max(floor, λ·weight) = capacity, by bisection.
        let [lo, hi] = [0, capacity + 1];
        for (let i = 0; i < 100; i++) {
          const mid = (lo + hi) / 2;
          if (SHARDS.reduce((n, s) => n + Math.max(floor(s), mid * weight(s)), 0) > capacity) hi = mid;
          else lo = mid;
        }
        for (const s of SHARDS) {
          const ideal = Math.max(floor(s), lo * weight(s));
          expect(Math.abs(fairShare.get(s)! - ideal), `shard ${s}`).toBeLessThanOrEqual(1 + 1e-6);
          expect(fairShare.get(s)!).toBeGreaterThanOrEqual(floor(s));
        }
        expect([...fairShare.values()].reduce((a, b) => a + b, 0)).toBe(capacity);
      }),
      { numRuns: 400 },
    );
  });

  it('rounds with acknowledged grants settle within 3 rounds on a fixpoint within tolerance of the fair shares, every slot granted', () => {
    fc.assert(
      fc.property(anyServers, anyDemand, (start, demand) => {
        const { rounds, last, servers } = settle(start, demand);
        expect(rounds).toBeLessThanOrEqual(3);
        for (const [shard, fair] of last.fairShare) expect(Math.abs(shardTotal(last, shard) - fair)).toBeLessThanOrEqual(Math.max(1, 0.1 * fair));
        for (const server of servers) {
          if (server.draining || server.shards.length === 0) continue;
          const promised = [...new Set([...server.used.keys(), ...server.committed!.keys()])].reduce(
            (n, shard) => n + Math.max(server.used.get(shard) ?? 0, server.committed!.get(shard) ?? 0),
            0,
          );
          expect(promised).toBeGreaterThanOrEqual(server.maxGames); // work-conserving: no slot left idle
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is stable: demand that moves less than the tolerance changes no grant', () => {
    fc.assert(
      fc.property(anyServers, anyDemand, fc.array(fc.double({ min: 0.97, max: 1.03, noNaN: true }), { minLength: SHARDS.length, maxLength: SHARDS.length }), (start, demand, wobble) => {
        const { servers } = settle(start, demand);
        const wobbled = new Map([...demand].map(([shard, d]) => [shard, { queued: d.queued * wobble[shard]!, perSecond: d.perSecond * wobble[shard]! }]));
        expect(grantSlots(servers, wobbled).changed).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
