import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerShards } from '../../src/cluster/sharded/server-shards.js';
import type { ServerEvent, ServerHello, ServerOrder } from '../../src/coordinator/messages.js';
import { apportionSlots, type ShardDemand } from '../../src/sharding/index.js';

const shardOf = (factory: string) => Number(factory.slice(1));
const hello = (maxGames: number): ServerHello => ({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [] });
const create = (requestId: string, shard: number, confirmWithinMs = 1_000): ServerOrder => ({
  kind: 'createGame',
  requestId,
  factory: `f${shard}`,
  partition: new Map(),
  matchable: new Map(),
  playerIds: ['p'],
  seatTeams: [],
  reservationToken: 't',
  confirmWithinMs,
  map: '',
  region: '',
});
const demandOf = (byShard: Record<number, number>) => new Map<number, ShardDemand>(Object.entries(byShard).map(([s, q]) => [Number(s), { queued: q, perSecond: 0 }]));

describe("a server's slots: the node holding its stream is their one ledger", () => {
  it('follows demand at hello, and a regrant moves slots to the busy shard without taking running games away', () => {
    let demand = demandOf({ 1: 90, 2: 10 });
    const split = new ServerShards(hello(10), [1, 2], shardOf, () => 0, () => demand);
    expect([split.capacityOf(1).maxGames, split.capacityOf(2).maxGames]).toEqual([9, 1]);
    expect(split.ordered(2, create('r1', 2))).toBeUndefined();
    split.route({ kind: 'gameCreated', requestId: 'r1', gameId: 'g1' });
    demand = demandOf({ 1: 10, 2: 90 });
    // Shrink first: shard 1 is told at once; shard 2 grows only into slots no grant covers (next round).
    const first = apportionSlots([split.slots()], demand);
    expect(split.regranted(first.grants.get('s'))).toEqual([[1, { kind: 'capacityChanged', capacity: { maxGames: 1, maxStartsPerSecond: 0 } }]]);
    const second = apportionSlots([split.slots()], demand);
    expect(split.regranted(second.grants.get('s'))).toEqual([[2, { kind: 'capacityChanged', capacity: { maxGames: 9, maxStartsPerSecond: 0 } }]]);
    expect(apportionSlots([split.slots()], demand).changed).toBe(false);
  });

  it("refuses a creation beyond its shard's grant now (decided under an older grant): the shard gets a failed creation, the server nothing", () => {
    let demand = demandOf({ 1: 50, 2: 50 });
    const split = new ServerShards(hello(8), [1, 2], shardOf, () => 0, () => demand);
    expect(split.capacityOf(1).maxGames).toBe(4);
    demand = demandOf({ 1: 10, 2: 70 });
    split.regranted(apportionSlots([split.slots()], demand).grants.get('s'));
    expect(split.capacityOf(1).maxGames).toBe(1);
    expect(split.ordered(1, create('a', 1))).toBeUndefined();
    // Shard 1's core still believed in 2 slots: its second creation is refused here.
    expect(split.ordered(1, create('b', 1))).toMatchObject({ kind: 'gameCreationFailed', requestId: 'b' });
    expect(split.ordered(1, create('a', 1))).toBeUndefined(); // a resend of one already counted
    // Its answer is routed back to its shard like the server's own would be, and frees nothing more.
    expect(split.slots().used.get(1)).toBe(1);
    split.route({ kind: 'gameCreationFailed', requestId: 'a', reason: 'full' });
    expect(split.slots().used.get(1)).toBeUndefined();
  });

  it('a creation the server never answers stops holding its slot after three confirm windows (30 s at least)', () => {
    let now = 0;
    const split = new ServerShards(hello(2), [1], shardOf, () => now, () => new Map());
    split.ordered(1, create('a', 1, 20_000));
    split.ordered(1, create('b', 1, 20_000));
    expect(split.ordered(1, create('c', 1, 20_000))).toMatchObject({ kind: 'gameCreationFailed' });
    now = 59_999;
    expect(split.slots().used.get(1)).toBe(2);
    now = 60_000;
    expect(split.slots().used.get(1)).toBeUndefined();
    expect(split.ordered(1, create('c', 1, 20_000))).toBeUndefined();
  });

  it('no slot is ever promised twice: with grants moving under any demand and cores acting on grants they were told late, the server never has more games and creations than its slots', () => {
    const SHARDS = [0, 1, 2];
    type Step =
      | { kind: 'order'; shard: number }
      | { kind: 'tell'; shard: number } // the oldest capacity change on its way reaches the shard's core
      | { kind: 'answer'; pick: number; ok: boolean }
      | { kind: 'end'; pick: number }
      | { kind: 'regrant'; demand: number[] };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('order' as const), shard: fc.constantFrom(...SHARDS) }),
      fc.record({ kind: fc.constant('tell' as const), shard: fc.constantFrom(...SHARDS) }),
      fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(), ok: fc.boolean() }),
      fc.record({ kind: fc.constant('end' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('regrant' as const), demand: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 3, maxLength: 3 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.array(step, { maxLength: 200 }), (maxGames, steps) => {
        let demand = new Map<number, ShardDemand>();
        const split = new ServerShards(hello(maxGames), SHARDS, shardOf, () => 0, () => demand);
        // Each core: the grant it was told last, its games and creations, the changes on their way to it.
        const cores = SHARDS.map((shard) => ({ grant: split.capacityOf(shard).maxGames, mine: 0, inbox: [] as number[] }));
        const starting: { requestId: string; shard: number }[] = [];
        const running: { gameId: string; shard: number }[] = [];
        let next = 0;
        const deliver = (shard: number, event: ServerEvent) => {
          if (event.kind === 'capacityChanged') cores[shard]!.inbox.push(event.capacity.maxGames);
          if (event.kind === 'gameCreationFailed' || event.kind === 'gameEnded') cores[shard]!.mine--;
        };
        for (const s of steps) {
          if (s.kind === 'order') {
            const core = cores[s.shard]!;
            if (core.mine >= core.grant) continue; // the core keeps to the grant it knows
            core.mine++;
            const requestId = `r${next++}`;
            const refused = split.ordered(s.shard, create(requestId, s.shard));
            if (refused) deliver(s.shard, refused);
            else starting.push({ requestId, shard: s.shard });
          } else if (s.kind === 'tell') {
            const told = cores[s.shard]!.inbox.shift();
            if (told !== undefined) cores[s.shard]!.grant = told;
          } else if (s.kind === 'answer' && starting.length > 0) {
            const [c] = starting.splice(s.pick % starting.length, 1);
            const gameId = `g${c!.requestId}`;
            const event: ServerEvent = s.ok ? { kind: 'gameCreated', requestId: c!.requestId, gameId } : { kind: 'gameCreationFailed', requestId: c!.requestId, reason: 'x' };
            for (const [shard, routed] of split.route(event)) deliver(shard, routed);
            if (s.ok) running.push({ gameId, shard: c!.shard });
          } else if (s.kind === 'end' && running.length > 0) {
            const [g] = running.splice(s.pick % running.length, 1);
            for (const [shard, routed] of split.route({ kind: 'gameEnded', gameId: g!.gameId })) deliver(shard, routed);
          } else if (s.kind === 'regrant') {
            demand = new Map(s.demand.map((q, shard) => [shard, { queued: q, perSecond: 0 }]));
            for (const [shard, event] of split.regranted(apportionSlots([split.slots()], demand).grants.get('s'))) deliver(shard, event);
          }
          // The server's own count: what it was asked to start and runs.
          expect(starting.length + running.length).toBeLessThanOrEqual(maxGames);
          // Each shard's games and creations on the server within its grant now: no slot held by two shards.
          for (const shard of SHARDS) {
            const held = starting.filter((c) => c.shard === shard).length + running.filter((g) => g.shard === shard).length;
            expect(held).toBeLessThanOrEqual(split.capacityOf(shard).maxGames);
          }
          const granted = SHARDS.reduce((n, shard) => n + split.capacityOf(shard).maxGames, 0);
          expect(granted).toBeLessThanOrEqual(maxGames);
        }
      }),
      { numRuns: 400 },
    );
  });
});
