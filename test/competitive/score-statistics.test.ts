import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ABS_SCORE, ScoreDistribution, seededRandom, validateTicket } from '../../src/competitive/index.js';
import { config, matcher, party, solo } from './fixtures.js';

// Issue 10, defect 8: a score of 1e308 was accepted and the factory's score mean and deviation
// were infinite from then on.

/** Normally distributed scores (Box-Muller) from a seeded generator. */
function normalScores(count: number, mean: number, sigma: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const u = Math.max(random(), 1e-12);
    return mean + sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  });
}

function exact(scores: readonly number[]): { mean: number; stdDev: number } {
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  return { mean, stdDev: Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length) };
}

function distributionOf(scores: readonly number[]): ScoreDistribution {
  const d = new ScoreDistribution();
  for (const s of scores) d.record(s);
  return d;
}

describe('the score range', () => {
  it.each([
    ['1e308', 1e308],
    ['just above 1e9', 1e9 + 1],
    ['-1e308', -1e308],
  ])('refuses a score of %s, naming the player', (_, score) => {
    expect(validateTicket(config({ teamSize: 2 }), party('t', [1500, score]))).toBe('party[1].score: must be within ±1e9');
  });

  it('accepts the ends of the range', () => {
    expect(validateTicket(config({ teamSize: 2 }), party('t', [MAX_ABS_SCORE, -MAX_ABS_SCORE]))).toBeUndefined();
  });

  it('a refused ticket never reaches the statistics', () => {
    const m = matcher(config());
    m.add(solo('a', 1400));
    m.add(solo('b', 1600));
    expect(() => m.add(solo('c', 1e308))).toThrow('party[0].score: must be within ±1e9');
    expect(m.stats()).toMatchObject({ scoreMean: 1500, scoreStdDev: 100 });
  });
});

describe('score statistics', () => {
  it('match the exact mean and deviation of well-behaved scores', () => {
    const scores = normalScores(5000, 1500, 300, 7);
    const d = distributionOf(scores);
    const truth = exact(scores);
    expect(d.samples).toBe(5000);
    expect(d.mean).toBeCloseTo(truth.mean, 0);
    expect(Math.abs(d.stdDev - truth.stdDev) / truth.stdDev).toBeLessThan(0.01);
  });

  it('one extreme score anywhere in the stream barely moves them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(MAX_ABS_SCORE, -MAX_ABS_SCORE, 1e7),
        fc.integer({ min: 1, max: 1000 }),
        (at, extreme, seed) => {
          const scores = normalScores(1000, 1500, 300, seed);
          const truth = exact(scores);
          scores.splice(at, 0, extreme);
          const d = distributionOf(scores);
          expect(Number.isFinite(d.mean) && Number.isFinite(d.stdDev)).toBe(true);
          expect(Math.abs(d.mean - truth.mean)).toBeLessThan(0.1 * truth.stdDev);
          expect(Math.abs(d.stdDev - truth.stdDev) / truth.stdDev).toBeLessThan(0.1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a factory fed a score of 1e9 keeps finite, sensible statistics', () => {
    const m = matcher(config());
    const scores = normalScores(200, 1500, 300, 3);
    m.add(solo('extreme', MAX_ABS_SCORE));
    scores.forEach((s, i) => m.add(solo(`p${i}`, s)));
    const stats = m.stats();
    const truth = exact(scores);
    expect(Math.abs(stats.scoreMean - truth.mean)).toBeLessThan(0.1 * truth.stdDev);
    expect(Math.abs(stats.scoreStdDev - truth.stdDev) / truth.stdDev).toBeLessThan(0.15);
  });

  it('still follow a real shift of the population', () => {
    // The whole population moves 5 sigma up: clamped at first, it still widens the band and follows.
    const scores = [...normalScores(1000, 1500, 300, 11), ...normalScores(4000, 3000, 300, 12)];
    const d = distributionOf(scores);
    const truth = exact(scores); // mean about 2700, deviation about 670
    expect(Math.abs(d.mean - truth.mean)).toBeLessThan(0.1 * truth.stdDev);
    expect(Math.abs(d.stdDev - truth.stdDev) / truth.stdDev).toBeLessThan(0.15);
  });

  it('widen from a start where every player has the same default score', () => {
    const d = distributionOf([...Array<number>(100).fill(1500), ...normalScores(3000, 1500, 300, 5)]);
    expect(Math.abs(d.stdDev - 300) / 300).toBeLessThan(0.1);
  });
});
