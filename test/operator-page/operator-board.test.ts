import { describe, expect, it } from 'vitest';
import { OperatorBoard } from '../../src/operator-page/operator-board.js';
import type { OperatorEvent, OperatorSnapshot, OperatorSource } from '../../src/operator-page/operator-source.js';
import { overview, parseOverviewQuery } from '../../src/operator-page/overview.js';
import { bucketOf, upperBound } from '../../src/operator-page/log-histogram.js';

class FakeSource implements OperatorSource {
  snap: OperatorSnapshot = { factories: [], servers: [] };
  private listener: ((e: OperatorEvent) => void) | undefined;
  snapshot() {
    return this.snap;
  }
  subscribe(listener: (e: OperatorEvent) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  emit(e: OperatorEvent) {
    this.listener?.(e);
  }
}

const factory = (name: string, waitingTickets: number, queueLength = 0) => ({
  name, template: name.split('/')[0]!, strategy: 'cooperative' as const, waitingTickets, queueLength, openGames: 0, openSlots: 0, servers: 1,
});
const server = (serverId: string, running: number, maxGames = 10) => ({
  serverId, factories: 1, maxGames, maxStartsPerSecond: 0, running, starting: 0, health: 'ok' as const,
});

describe('the operator board', () => {
  it('reports time-to-assignment quantiles of the last minute within one log bucket', () => {
    let now = 1_000_000;
    const source = new FakeSource();
    source.snap = { factories: [factory('a', 0)], servers: [] };
    const board = new OperatorBoard(source, () => now);
    for (let ms = 1; ms <= 1000; ms++) source.emit({ kind: 'find-finished', factory: 'a', outcome: 'assigned', elapsedMs: ms });
    source.emit({ kind: 'find-finished', factory: 'a', outcome: 'cancelled', elapsedMs: 999_999 });
    board.tick();
    const row = board.state.factories[0]!;
    expect(row.assignmentP50Ms).toBeGreaterThanOrEqual(500);
    expect(row.assignmentP50Ms).toBeLessThanOrEqual(500 * 1.19);
    expect(row.assignmentP99Ms).toBeGreaterThanOrEqual(990);
    expect(row.assignmentP99Ms).toBeLessThanOrEqual(990 * 1.19);
    expect(board.state.totals!.assignmentP99Ms).toBe(row.assignmentP99Ms);
    // A minute and more later the window is empty.
    now += 61_000;
    board.tick();
    expect(board.state.factories[0]!.assignmentP50Ms).toBeNull();
  });

  it("shows how the last minute's games were predicted to go: the favourite's chance by bin, and its mean", () => {
    let now = 5_000_000;
    const source = new FakeSource();
    source.snap = { factories: [factory('duel', 0)], servers: [] };
    const board = new OperatorBoard(source, () => now);
    for (const p of [0.51, 0.52, 0.58, 0.65, 0.9]) source.emit({ kind: 'game-formed', factory: 'duel', gapInSigma: 0.1, favouriteWinProbability: p });
    now += 500;
    board.tick();
    const duel = board.state.factories[0]!;
    // Bins from 0.5, 0.55, 0.6, 0.7, 0.8: two coin tosses, one at 0.58, one at 0.65, one lopsided.
    expect(duel.recentFavourite?.shares).toEqual([0.4, 0.2, 0.2, 0, 0.2]);
    expect(duel.recentFavourite?.mean).toBeCloseTo(0.632, 6);
    now += 61_000;
    board.tick();
    expect(board.state.factories[0]!.recentFavourite).toBeNull();
  });

  it('counts games per minute, server start rates and recent skill gaps from events', () => {
    let now = 5_000_000;
    const source = new FakeSource();
    source.snap = { factories: [factory('a', 0), factory('b', 0)], servers: [server('s1', 3), server('s2', 0)] };
    const board = new OperatorBoard(source, () => now);
    for (let i = 0; i < 30; i++) source.emit({ kind: 'placed', factory: 'a' });
    for (let i = 0; i < 20; i++) source.emit({ kind: 'game-started', serverId: 's1' });
    source.emit({ kind: 'game-formed', factory: 'b', gapInSigma: 0.1 });
    source.emit({ kind: 'game-formed', factory: 'b', gapInSigma: 0.3 });
    now += 500;
    board.tick();
    const [a, b] = board.state.factories;
    expect(a!.gamesPerMinute).toBe(30);
    expect(b!.gamesPerMinute).toBe(0);
    expect(b!.recentGapSigma).toBeCloseTo(0.2);
    expect(a!.recentGapSigma).toBeNull();
    expect(board.state.servers.map((s) => s.startsPerSecond)).toEqual([2, 0]);
    expect(board.state.totals).toMatchObject({ running: 3, capacity: 20, startsPerSecond: 2, gamesPerMinute: 30 });
    const [t, waiting] = board.totalsSeries();
    expect(t).toEqual([now]);
    expect(waiting).toEqual([0]);
  });

  it('serves the top N that match the filter, sorted, and keeps every factory counted', () => {
    const source = new FakeSource();
    source.snap = {
      factories: Array.from({ length: 300 }, (_, i) => factory(`f${i}/x`, i, i % 7)),
      servers: Array.from({ length: 2000 }, (_, i) => server(`srv-${i}`, i % 10)),
    };
    const board = new OperatorBoard(source, () => 0);
    board.tick();
    const all = overview(board, parseOverviewQuery(new URLSearchParams('top=5')));
    expect(all.factories.total).toBe(300);
    expect(all.factories.rows.map((f) => f.name)).toEqual(['f299/x', 'f298/x', 'f297/x', 'f296/x', 'f295/x']);
    expect(all.servers.total).toBe(2000);
    expect(all.servers.rows).toHaveLength(5);
    expect(all.servers.rows.every((s) => s.running === 9)).toBe(true);
    const filtered = overview(board, parseOverviewQuery(new URLSearchParams('top=100&factory_filter=F12&factory_sort=name')));
    expect(filtered.factories.rows.map((f) => f.name)).toEqual(['f12/x', 'f120/x', 'f121/x', 'f122/x', 'f123/x', 'f124/x', 'f125/x', 'f126/x', 'f127/x', 'f128/x', 'f129/x']);
    expect(filtered.factories.matching).toBe(11);
  });

  it('names the parameter when a query is bad', () => {
    expect(() => parseOverviewQuery(new URLSearchParams('top=0'))).toThrow(/^top: "0"/);
    expect(() => parseOverviewQuery(new URLSearchParams('top=abc'))).toThrow(/^top:/);
    expect(() => parseOverviewQuery(new URLSearchParams('factory_sort=players'))).toThrow(/^factory_sort: "players" is not one of/);
  });

  it('puts every value in a bucket whose upper bound is at most 19% above it', () => {
    for (const v of [1.5, 2, 3, 10, 999, 12345, 3.6e6]) {
      expect(upperBound(bucketOf(v))).toBeGreaterThanOrEqual(v * (1 - 1e-12));
      expect(upperBound(bucketOf(v))).toBeLessThanOrEqual(v * 1.19);
    }
  });
});
