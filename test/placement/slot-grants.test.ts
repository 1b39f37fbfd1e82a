import { describe, expect, it } from 'vitest';
import { grantSlots, type ServerSlots, type ShardDemand } from '../../src/placement/slot-grants.js';

const server = (serverId: string, maxGames: number, shards: number[], used: [number, number][] = [], committed?: ReadonlyMap<number, number>): ServerSlots => ({
  serverId,
  maxGames,
  shards,
  used: new Map(used),
  committed,
});
const demand = (...perShard: number[]) => new Map<number, ShardDemand>(perShard.map((queued, shard) => [shard, { queued, perSecond: 0 }]));

describe('slot grants', () => {
  it('apportions slots by demand: 3:1 demand over two servers of 10 gives 15 and 5', () => {
    const round = grantSlots([server('a', 10, [0, 1]), server('b', 10, [0, 1])], demand(30, 10));
    expect(round.fairShare).toEqual(new Map([[0, 15], [1, 5]]));
    const total = (shard: number) => [...round.grants.values()].reduce((n, g) => n + g.get(shard)!, 0);
    expect([total(0), total(1)]).toEqual([15, 5]);
  });

  it("a shard's running games are its floor: the others share what is left", () => {
    const round = grantSlots([server('a', 10, [0, 1], [[1, 8]])], demand(100, 1));
    expect(round.grants.get('a')).toEqual(new Map([[0, 2], [1, 8]]));
  });

  it('a slot moves between shards in two rounds: taken from one first, given to the other once that is acknowledged', () => {
    const first = grantSlots([server('a', 10, [0, 1])], demand(10, 10)).grants.get('a')!;
    expect(first).toEqual(new Map([[0, 5], [1, 5]]));
    // Demand turns to shard 0. Shard 1's owner may still use 5 until it acknowledges its new grant.
    const shrink = grantSlots([server('a', 10, [0, 1], [], first)], demand(90, 10)).grants.get('a')!;
    expect(shrink).toEqual(new Map([[0, 5], [1, 1]]));
    const grow = grantSlots([server('a', 10, [0, 1], [], shrink)], demand(90, 10));
    expect(grow.grants.get('a')).toEqual(new Map([[0, 9], [1, 1]]));
    expect(grantSlots([server('a', 10, [0, 1], [], grow.grants.get('a')!)], demand(90, 10)).changed).toBe(false);
  });

  it('a server hosting only one shard is used by that shard first, leaving shared servers to the others', () => {
    // "a" hosts both shards, "b" only shard 1: max-min fairness gives shard 0 all of "a".
    const round = grantSlots([server('a', 10, [0, 1]), server('b', 10, [1])], demand(10, 10));
    expect(round.grants.get('a')).toEqual(new Map([[0, 10], [1, 0]]));
    expect(round.grants.get('b')).toEqual(new Map([[1, 10]]));
  });

  it('refuses bad input naming the field', () => {
    expect(() => grantSlots([server('a', -1, [0])], demand(1))).toThrow(/servers\["a"\]\.maxGames must be an integer >= 0, got -1/);
    expect(() => grantSlots([server('a', 1, [0]), server('a', 1, [0])], demand(1))).toThrow(/"a" is listed twice/);
    expect(() => grantSlots([server('a', 1, [0], [[0, 1.5]])], demand(1))).toThrow(/servers\["a"\]\.used\[0\] must be an integer >= 0/);
    expect(() => grantSlots([server('a', 1, [0])], new Map([[0, { queued: -1, perSecond: 0 }]]))).toThrow(/demand of shard 0/);
  });
});
