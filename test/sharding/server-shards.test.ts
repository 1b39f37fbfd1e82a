import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ServerShards } from '../../src/cluster/sharded/server-shards.js';
import type { RunningGame, ServerHello } from '../../src/coordinator/messages.js';

const shardOf = (factory: string) => Number(factory.slice(1));
const game = (gameId: string, factory: string): RunningGame => ({ gameId, factory, matchable: new Map(), playerIds: ['p'], open: true, startedAt: 0 });
const hello = (maxGames: number, runningGames: RunningGame[] = [], maxStartsPerSecond = 0): ServerHello => ({
  serverId: 's',
  endpoint: 's:1',
  attributes: new Map(),
  templates: [],
  capacity: { maxGames, maxStartsPerSecond },
  runningGames,
});

describe('a game server split over the shards it hosts', () => {
  it("each shard is told its own running games and its grant; the grants never exceed the server's slots", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (maxGames, shards, picks) => {
        const sorted = [...shards].sort((a, b) => a - b);
        const running = picks.map((p, i) => game(`g${i}`, `f${sorted[p % sorted.length]}`)).slice(0, maxGames);
        const split = new ServerShards(hello(maxGames, running), sorted, shardOf);
        const hellos = split.hellos();
        expect([...hellos.keys()]).toEqual(sorted);
        let total = 0;
        for (const [shard, h] of hellos) {
          expect(h.runningGames.every((g) => shardOf(g.factory) === shard)).toBe(true);
          // A shard keeps room for the games it runs.
          expect(h.capacity.maxGames).toBeGreaterThanOrEqual(h.runningGames.length);
          total += h.capacity.maxGames;
        }
        expect(total).toBeLessThanOrEqual(maxGames);
        expect(total).toBe(maxGames); // every slot goes to some shard
        // Fair within one slot when nothing runs.
        if (running.length === 0) {
          const grants = [...hellos.values()].map((h) => h.capacity.maxGames);
          expect(Math.max(...grants) - Math.min(...grants)).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it("routes a creation's answer to the shard that ordered it, and a game's news and result to the game's shard", () => {
    const split = new ServerShards(hello(6, [game('old', 'f5')]), [2, 5, 9], shardOf);
    split.ordered(9, { kind: 'createGame', requestId: 'r1', factory: 'f9', partition: new Map(), matchable: new Map(), playerIds: ['p'], seatTeams: [], reservationToken: 't', confirmWithinMs: 1, map: '', region: '' });
    expect(split.route({ kind: 'gameCreated', requestId: 'r1', gameId: 'g1' })).toEqual([[9, { kind: 'gameCreated', requestId: 'r1', gameId: 'g1' }]]);
    expect(split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'p' })[0]![0]).toBe(9);
    expect(split.route({ kind: 'playerLeft', gameId: 'old', playerId: 'p' })[0]![0]).toBe(5);
    split.ordered(2, { kind: 'reserveSeats', gameId: 'g2', playerIds: ['q'], reservationToken: 't', expiresInMs: 1 });
    expect(split.route({ kind: 'gameClosed', gameId: 'g2' })[0]![0]).toBe(2);
    // A result comes after its game ended: still its shard's.
    expect(split.route({ kind: 'gameEnded', gameId: 'g1' })[0]![0]).toBe(9);
    const result = { gameId: 'g1', serverId: 's', teams: [], durationSeconds: 1, leftEarly: [] };
    expect(split.route({ kind: 'gameResult', result })[0]![0]).toBe(9);
    // Unknown ids go to one shard, whose core refuses them as one node would.
    expect(split.route({ kind: 'gameCreationFailed', requestId: 'nope', reason: 'x' })).toHaveLength(1);
    expect(split.route({ kind: 'gameEnded', gameId: 'nope' })).toHaveLength(1);
  });

  it("a shard's hello again (its owner changed) holds its games as the server's events left them", () => {
    const split = new ServerShards(hello(6, [game('old', 'f5')]), [2, 5, 9], shardOf, () => 42);
    const matchable = new Map([['mode', 'x']]) as RunningGame['matchable'];
    split.ordered(9, { kind: 'createGame', requestId: 'r1', factory: 'f9', partition: new Map(), matchable, playerIds: ['a', 'b'], seatTeams: [], reservationToken: 't', confirmWithinMs: 1, map: '', region: '' });
    split.ordered(9, { kind: 'createGame', requestId: 'r2', factory: 'f9', partition: new Map(), matchable, playerIds: ['c'], seatTeams: [], reservationToken: 't', confirmWithinMs: 1, map: '', region: '' });
    expect(split.helloOf(9).runningGames).toEqual([]); // not created yet
    // ...but ordered and unanswered: the next owner lets their tickets wait for the answer.
    expect(split.helloOf(9).pendingCreations).toEqual(['r1', 'r2']);
    expect(split.helloOf(5).pendingCreations).toEqual([]);
    split.route({ kind: 'gameCreated', requestId: 'r1', gameId: 'g1' });
    split.route({ kind: 'gameCreationFailed', requestId: 'r2', reason: 'full' });
    expect(split.helloOf(9).pendingCreations).toEqual([]);
    split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'a' });
    split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'b' });
    split.route({ kind: 'playerLeft', gameId: 'g1', playerId: 'b' });
    split.route({ kind: 'gameClosed', gameId: 'g1' });
    split.route({ kind: 'playerJoined', gameId: 'old', playerId: 'q' });
    expect(split.helloOf(9)).toMatchObject({ serverId: 's', capacity: split.capacityOf(9) });
    expect(split.helloOf(9).runningGames).toEqual([{ gameId: 'g1', factory: 'f9', requestId: 'r1', matchable, playerIds: ['a'], open: false, startedAt: 42 }]);
    expect(split.helloOf(5).runningGames).toEqual([{ ...game('old', 'f5'), playerIds: ['p', 'q'] }]);
    expect(split.helloOf(2).runningGames).toEqual([]);
    split.route({ kind: 'gameEnded', gameId: 'g1' });
    expect(split.helloOf(9).runningGames).toEqual([]);
  });

  it("a shard's next owner is told of seats ordered but not joined yet as the game's players, until they join or their reservation ends", () => {
    let now = 1000;
    const split = new ServerShards(hello(6), [9], shardOf, () => now);
    split.ordered(9, { kind: 'createGame', requestId: 'r1', factory: 'f9', partition: new Map(), matchable: new Map(), playerIds: ['a', 'b'], seatTeams: [], reservationToken: 't', confirmWithinMs: 1, map: '', region: '' });
    split.route({ kind: 'gameCreated', requestId: 'r1', gameId: 'g1' });
    split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'a' });
    split.ordered(9, { kind: 'reserveSeats', gameId: 'g1', playerIds: ['c'], reservationToken: 't2', expiresInMs: 5_000 });
    // The owner that ordered them died: its successor must not offer b's and c's seats again.
    expect(split.helloOf(9).runningGames[0]!.playerIds).toEqual(['a', 'b', 'c']);
    split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'c' });
    expect(split.helloOf(9).runningGames[0]!.playerIds).toEqual(['a', 'c', 'b']);
    now += 30_000; // b never came: its seat is no longer held
    expect(split.helloOf(9).runningGames[0]!.playerIds).toEqual(['a', 'c']);
    split.ordered(9, { kind: 'reserveSeats', gameId: 'g1', playerIds: ['d'], reservationToken: 't3', expiresInMs: 5_000 });
    split.route({ kind: 'gameEnded', gameId: 'g1' });
    expect(split.helloOf(9).runningGames).toEqual([]);
  });

  it('a new capacity is granted again: each shard gets its own share', () => {
    const split = new ServerShards(hello(4, [], 10), [1, 2], shardOf);
    expect(split.capacityOf(1)).toEqual({ maxGames: 2, maxStartsPerSecond: 5 });
    const routed = split.route({ kind: 'capacityChanged', capacity: { maxGames: 10, maxStartsPerSecond: 0 } });
    expect(routed).toEqual([
      [1, { kind: 'capacityChanged', capacity: { maxGames: 5, maxStartsPerSecond: 0 } }],
      [2, { kind: 'capacityChanged', capacity: { maxGames: 5, maxStartsPerSecond: 0 } }],
    ]);
  });

  it('a server reconnected from another node: each shard hears of its own orders still being made, the answers go back to it, and their slots stay counted until the game ends', () => {
    let now = 0;
    const pending = ['s5.a', 's9.b', 's9.c', 's7.d', 'untagged'];
    const split = new ServerShards({ ...hello(4), pendingCreations: pending }, [2, 5, 9], shardOf, () => now);
    expect(split.helloOf(5).pendingCreations).toEqual(['s5.a']);
    expect(split.helloOf(9).pendingCreations).toEqual(['s9.b', 's9.c']);
    // Shard 7 is not one this server hosts, and an untagged id names no shard: neither is passed on.
    expect(split.helloOf(2).pendingCreations).toEqual([]);
    const usedBy = (shard: number) => split.slots().used.get(shard) ?? 0;
    expect([usedBy(5), usedBy(9)]).toEqual([1, 2]);

    expect(split.route({ kind: 'gameCreated', requestId: 's9.b', gameId: 'g1' })).toEqual([[9, { kind: 'gameCreated', requestId: 's9.b', gameId: 'g1' }]]);
    expect(split.route({ kind: 'gameCreationFailed', requestId: 's5.a', reason: 'x' })[0]![0]).toBe(5);
    expect(split.helloOf(9).pendingCreations).toEqual(['s9.c']);
    expect([usedBy(5), usedBy(9)]).toEqual([0, 2]);
    expect(split.route({ kind: 'playerJoined', gameId: 'g1', playerId: 'p' })[0]![0]).toBe(9);
    split.route({ kind: 'gameEnded', gameId: 'g1' });
    expect(usedBy(9)).toBe(1);

    // One never answered stops holding its slot, as an order sent through this node does.
    now += 10 * 60_000;
    expect(usedBy(9)).toBe(0);
    expect(split.helloOf(9).pendingCreations).toEqual([]);
  });

  it("an answer to an order this node never saw goes to the shard its id names, if the server hosts it (a server that did not list it at hello)", () => {
    const split = new ServerShards(hello(4), [2, 5, 9], shardOf);
    expect(split.route({ kind: 'gameCreated', requestId: 's5.x', gameId: 'g' })[0]![0]).toBe(5);
    expect(split.route({ kind: 'gameCreationFailed', requestId: 's9.y', reason: 'r' })[0]![0]).toBe(9);
    // A shard it does not host: the first shard's core refuses it, as before.
    expect(split.route({ kind: 'gameCreated', requestId: 's7.z', gameId: 'h' })[0]![0]).toBe(2);
    expect(split.slots().used.size).toBe(0);
  });

  it('a reload that gives the server factories in more shards: it hosts them with no slot until the grant loop apportions it again', () => {
    const split = new ServerShards(hello(4), [2, 5], shardOf);
    expect(split.host([5, 9, 1])).toEqual([9, 1]);
    expect(split.shards).toEqual([1, 2, 5, 9]);
    expect(split.helloOf(9).capacity.maxGames).toBe(0);
    expect(split.host([9])).toEqual([]);
    // The next round of the grant loop shares the 4 slots (2 and 2 until now) over all four shards.
    expect(split.regranted(new Map([[1, 1], [2, 1], [5, 1], [9, 1]])).map(([shard]) => shard)).toEqual([1, 2, 5, 9]);
    expect(split.helloOf(9).capacity.maxGames).toBe(1);
  });
});
