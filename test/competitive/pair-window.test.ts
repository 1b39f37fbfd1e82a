import { describe, expect, it } from 'vitest';
import type { BatchEntry } from '../../src/competitive/batch-entry.js';
import type { PairWindow } from '../../src/competitive/index.js';
import { DEFAULT_PAIR_WINDOW, pairWindowOf } from '../../src/competitive/one-on-one-pairing.js';
import { config, matcher, pairsOf, solo, steps } from './fixtures.js';

/** A veteran who waited 10 s (window 10) and a newcomer (window 2), 5 apart, at t = 10 s. */
function veteranAndNewcomer(pairWindow: PairWindow, newcomerUncertainty = 0) {
  const m = matcher(config({ pairWindow, expansion: steps([0, 2], [10_000, 10]) }));
  m.add(solo('veteran', 0, { enqueuedAt: 0 }));
  m.add({ ...solo('newcomer', 5, { enqueuedAt: 10_000 }), scoreUncertainty: newcomerUncertainty });
  return m;
}

describe('1v1 pair window: whose window a pair must fit', () => {
  it('longer-waiter: the veteran’s window of 10 takes a newcomer 5 away whose own window is 2', () => {
    const m = veteranAndNewcomer('longer-waiter');
    expect(pairsOf(m.formGames(10_000))).toEqual(['newcomer+veteran']);
  });

  it('reciprocal: the same newcomer’s window of 2 refuses the veteran', () => {
    expect(veteranAndNewcomer('reciprocal').formGames(10_000)).toEqual([]);
  });

  it('mean: (10 + 2) / 2 = 6 holds a gap of 5, a gap of 7 is refused', () => {
    expect(pairsOf(veteranAndNewcomer('mean').formGames(10_000))).toEqual(['newcomer+veteran']);
    const m = matcher(config({ pairWindow: 'mean', expansion: steps([0, 2], [10_000, 10]) }));
    m.add(solo('veteran', 0, { enqueuedAt: 0 }));
    m.add(solo('newcomer', 7, { enqueuedAt: 10_000 }));
    expect(m.formGames(10_000)).toEqual([]);
  });

  it('longer-waiter: the one who waited longer decides even when the newcomer’s window is wider', () => {
    // The newcomer's rating is unsure: window 2 + 20. The veteran (window 4 after 10 s) decides: no pair.
    const m = matcher(config({ pairWindow: 'longer-waiter', expansion: steps([0, 2], [10_000, 4]) }));
    m.add(solo('veteran', 0, { enqueuedAt: 0 }));
    m.add({ ...solo('newcomer', 5, { enqueuedAt: 10_000 }), scoreUncertainty: 20 });
    expect(m.formGames(10_000)).toEqual([]);
    // The uncertainty still widens the newcomer's own window once it is the longer waiter.
    m.add(solo('late', 20, { enqueuedAt: 12_000 }));
    expect(pairsOf(m.formGames(12_000))).toEqual(['late+newcomer']);
  });

  it('an equal wait takes the wider window, so the rule does not depend on which side is low', () => {
    const narrow = { score: 0, waitMs: 1000, maxScoreGap: 1 } as BatchEntry;
    const wide = { score: 3, waitMs: 1000, maxScoreGap: 4 } as BatchEntry;
    for (const rule of ['reciprocal', 'mean', 'longer-waiter'] as const) {
      expect(pairWindowOf(narrow, wide, rule)).toBe(pairWindowOf(wide, narrow, rule));
    }
    expect(pairWindowOf(narrow, wide, 'longer-waiter')).toBe(4);
    expect(pairWindowOf(narrow, wide, 'reciprocal')).toBe(1);
    expect(pairWindowOf(narrow, wide, 'mean')).toBe(2.5);
  });

  it('reciprocal is the default (round one\'s contract); longer-waiter is asked for by name', () => {
    expect(DEFAULT_PAIR_WINDOW).toBe('reciprocal');
    const byDefault = matcher(config({ expansion: steps([0, 2], [10_000, 10]) }));
    byDefault.add(solo('veteran', 0, { enqueuedAt: 0 }));
    byDefault.add(solo('newcomer', 5, { enqueuedAt: 10_000 }));
    expect(pairsOf(byDefault.formGames(10_000))).toEqual([]);
    const veteranDecides = matcher(config({ pairWindow: 'longer-waiter', expansion: steps([0, 2], [10_000, 10]) }));
    veteranDecides.add(solo('veteran', 0, { enqueuedAt: 0 }));
    veteranDecides.add(solo('newcomer', 5, { enqueuedAt: 10_000 }));
    expect(pairsOf(veteranDecides.formGames(10_000))).toEqual(['newcomer+veteran']);
  });

  it('a rating’s uncertainty widens the window in a batch (reciprocal: both must hold the gap)', () => {
    const m = matcher(config({ pairWindow: 'reciprocal', expansion: steps([0, 2]) }));
    m.add({ ...solo('a', 0), scoreUncertainty: 5 });
    m.add({ ...solo('b', 4), scoreUncertainty: 5 });
    expect(pairsOf(m.formGames(0))).toEqual(['a+b']);
  });
});
