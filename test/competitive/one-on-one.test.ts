import { describe, expect, it } from 'vitest';
import { config, matcher, pairsOf, solo, steps } from './fixtures.js';

describe('1v1: sort and pair (Hearthstone batching)', () => {
  it('pairs score neighbours of the talk example when windows are wide', () => {
    const m = matcher(config());
    for (const [id, score] of [
      ['phineas', 1.5],
      ['ferb', 1.8],
      ['isabella', 1.7],
      ['dooft', -0.5],
      ['vanessa', 0.3],
      ['candace', -0.7],
    ] as const) {
      m.add(solo(id, score));
    }
    const games = m.formGames(0);
    expect(pairsOf(games)).toEqual(['candace+dooft', 'ferb+isabella', 'phineas+vanessa']);
    expect(m.size).toBe(0);
    for (const game of games) {
      expect(game.teams).toHaveLength(2);
      expect(game.quality.teamImbalance).toBeCloseTo(game.quality.scoreGap);
    }
  });

  it('pairs only within the threshold and prefers the closer neighbour', () => {
    const m = matcher(config({ expansion: steps([0, 0.5]) }));
    for (const [id, score] of [
      ['phineas', 1.5],
      ['ferb', 1.8],
      ['isabella', 1.7],
      ['dooft', -0.5],
      ['vanessa', 0.3],
      ['candace', -0.7],
    ] as const) {
      m.add(solo(id, score));
    }
    // phineas-isabella (0.2) and isabella-ferb (0.1) both fit; only one can start, the closer one.
    expect(pairsOf(m.formGames(0))).toEqual(['candace+dooft', 'ferb+isabella']);
    expect(m.size).toBe(2);
  });

  it('chooses neighbours so that the most games start', () => {
    // Greedy left-to-right would pair b+c (closest) and strand a and d.
    const m = matcher(config({ expansion: steps([0, 1.1]) }));
    m.add(solo('a', 0));
    m.add(solo('b', 1));
    m.add(solo('c', 1.5));
    m.add(solo('d', 2.5));
    expect(pairsOf(m.formGames(0))).toEqual(['a+b', 'c+d']);
  });

  it('pairWindow reciprocal needs both windows: A inside B’s window but B not inside A’s is no pair', () => {
    const m = matcher(config({ pairWindow: 'reciprocal', expansion: steps([0, 2], [10_000, 10]) }));
    m.add(solo('veteran', 0, { enqueuedAt: 0 })); // waited 10 s at t=10 s: window 10
    m.add(solo('newcomer', 5, { enqueuedAt: 10_000 })); // just arrived: window 2
    expect(m.formGames(10_000)).toEqual([]);
    expect(m.size).toBe(2);
    // Once the newcomer has waited 10 s too, both windows hold the gap of 5.
    expect(pairsOf(m.formGames(20_000))).toEqual(['newcomer+veteran']);
  });

  it('widens windows step by step as tickets wait', () => {
    const m = matcher(config({ expansion: steps([0, 1], [10_000, 5], [30_000, Infinity]) }));
    m.add(solo('a', 0));
    m.add(solo('b', 3));
    m.add(solo('c', 100));
    m.add(solo('d', 200));
    expect(m.formGames(0)).toEqual([]);
    expect(m.formGames(9_999)).toEqual([]);
    expect(pairsOf(m.formGames(10_000))).toEqual(['a+b']);
    expect(m.formGames(29_999)).toEqual([]);
    expect(pairsOf(m.formGames(30_000))).toEqual(['c+d']);
  });

  it('carries leftovers over with their wait', () => {
    const m = matcher(config({ pairWindow: 'reciprocal', expansion: steps([0, 1], [5_000, 10]) }));
    m.add(solo('early', 0, { enqueuedAt: 1_000 }));
    expect(m.formGames(2_000)).toEqual([]);
    m.add(solo('late', 4, { enqueuedAt: 5_000 }));
    expect(m.formGames(6_000)).toEqual([]);
    expect(m.size).toBe(2);
    const [game] = m.formGames(10_000);
    expect(game?.quality.waitsMs.sort((a, b) => a - b)).toEqual([5_000, 9_000]);
  });

  it('reports quality in sigma of the factory distribution', () => {
    const m = matcher(config());
    m.add(solo('a', 0));
    m.add(solo('b', 2));
    const [game] = m.formGames(0);
    // Population stddev of {0, 2} is 1.
    expect(game?.quality.scoreGap).toBe(2);
    expect(game?.quality.gapInSigma).toBeCloseTo(2);
    const stats = m.stats();
    expect(stats).toMatchObject({ waiting: 0, gamesFormed: 1, scoreMean: 1, scoreStdDev: 1 });
    expect(stats.meanGapInSigma).toBeCloseTo(2);
    expect(stats.p99GapInSigma).toBeGreaterThanOrEqual(2);
  });

  it('removes tickets', () => {
    const m = matcher(config());
    m.add(solo('a', 0));
    m.add(solo('b', 1));
    expect(m.remove('a')).toBe(true);
    expect(m.remove('a')).toBe(false);
    expect(m.formGames(0)).toEqual([]);
    expect(m.size).toBe(1);
  });

  it('refuses invalid and duplicate tickets', () => {
    const m = matcher(config());
    m.add(solo('a', 0));
    expect(() => m.add(solo('a', 1))).toThrow(/already waiting/);
    expect(() => m.add(solo('b', Number.NaN))).toThrow('party[0].score: must be a finite number');
  });
});
