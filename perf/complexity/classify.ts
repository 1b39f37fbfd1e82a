import type { Complexity } from './case.js';
import { median } from './measure.js';

/**
 * Fits the growth of time per call against n to a complexity class.
 *
 * The talk's method is "vary N from 2^a to 2^b, divide results to obtain complexity order".
 * We do that, and read the power of n (0, 1 or 2) from three slopes of log t against log n that
 * must agree, the lowest power winning: the median of the per-doubling slopes, the least-squares
 * slope over the whole range, and the least-squares slope over its upper half. All three are
 * needed on real hardware: a constant-time structure slows 2–8x over 2^8..2^16 as it falls out of
 * L1 and then L2, with per-doubling slopes of 0.5–0.9 across the transition, and when that
 * staircase spans most of the range it lifts the first two slopes to 0.5. But a staircase levels
 * off once the structure sits in the next cache, while t = a + b·n only steepens as n grows, so
 * its upper-half slope is its largest. Boundaries sit halfway between powers (slope 0.5 and 1.5),
 * so "no hidden O(n)" never hinges on a 10% timing difference.
 *
 * A log factor is then judged from the least-squares line: after dividing out n^power,
 * O(f · log n) predicts the time still grows by log(n_max)/log(n_min) (2x for 2^8..2^16),
 * O(f) predicts no growth. */

export const complexityClasses: readonly Complexity[] = ['O(1)', 'O(log n)', 'O(n)', 'O(n log n)', 'O(n^2)'];

/**
 * Pass/fail tiers. O(1) and O(log n) share one: on this hardware the memory hierarchy alone adds
 * more growth to a hash lookup (2–8x) than log n does to a binary search (1.6x), so timings cannot
 * tell them apart and a budget of O(1) fails only on linear growth or worse — the talk's
 * "no hidden O(n)". The fitted label still says which of the two the data looks more like.
 */
const tier: Readonly<Record<Complexity, number>> = {
  'O(1)': 0,
  'O(log n)': 0,
  'O(n)': 1,
  'O(n log n)': 2,
  'O(n^2)': 3,
};

export function withinBudget(fitted: Complexity, budget: Complexity): boolean {
  return tier[fitted] <= tier[budget];
}

/** Slopes halfway between powers of n: 0 | 1 | 2. */
function powerOf(slope: number): number {
  return slope < 0.5 ? 0 : slope < 1.5 ? 1 : 2;
}

/**
 * A log factor is called when the growth left after dividing out n^power reaches this power of
 * the log-n prediction: 0.75 is three quarters of the way to the higher class on a log scale, so a
 * linear scan that loses some cache locality at large n is not called O(n log n).
 */
const logFactorShare = 0.75;

export interface SizePoint {
  readonly n: number;
  readonly nsPerCall: number;
}

export interface GrowthFit {
  readonly fitted: Complexity;
  /** Median of log2(t[k+1]/t[k]) / log2(n[k+1]/n[k]): the power of n. */
  readonly medianDoublingSlope: number;
  /** Least-squares slope of log t against log n over all sizes. */
  readonly leastSquaresSlope: number;
  /** The same over the upper half of the sizes (from the middle one up). */
  readonly upperHalfSlope: number;
  /** Growth over the range from the least-squares line, divided by (n_max/n_min)^power. */
  readonly residualGrowth: number;
  /** What a log factor alone would predict for residualGrowth: log(n_max)/log(n_min). */
  readonly logFactorPrediction: number;
  /** log2(t[k+1]/t[k]) per doubling, for the table. */
  readonly doublingSlopes: readonly number[];
}

export function fitGrowth(points: readonly SizePoint[]): GrowthFit {
  if (points.length < 3) throw new Error('need at least three sizes to fit growth');
  const sorted = [...points].sort((a, b) => a.n - b.n);
  const xs = sorted.map((p) => Math.log2(p.n));
  const ys = sorted.map((p) => Math.log2(Math.max(p.nsPerCall, 1e-3)));

  const doublingSlopes: number[] = [];
  for (let k = 0; k + 1 < sorted.length; k++) {
    doublingSlopes.push((ys[k + 1]! - ys[k]!) / (xs[k + 1]! - xs[k]!));
  }
  const medianDoublingSlope = median(doublingSlopes);
  const leastSquaresSlope = slopeOf(xs, ys);
  const middle = Math.floor((xs.length - 1) / 2);
  const upperHalfSlope = slopeOf(xs.slice(middle), ys.slice(middle));
  const power = Math.min(powerOf(medianDoublingSlope), powerOf(leastSquaresSlope), powerOf(upperHalfSlope));

  const span = xs[xs.length - 1]! - xs[0]!;
  const residualGrowth = 2 ** ((leastSquaresSlope - power) * span);
  const logFactorPrediction = xs[xs.length - 1]! / Math.max(xs[0]!, 1);
  const hasLogFactor = residualGrowth >= logFactorPrediction ** logFactorShare;

  const fitted: Complexity =
    power === 0 ? (hasLogFactor ? 'O(log n)' : 'O(1)') : power === 1 ? (hasLogFactor ? 'O(n log n)' : 'O(n)') : 'O(n^2)';
  return { fitted, medianDoublingSlope, leastSquaresSlope, upperHalfSlope, residualGrowth, logFactorPrediction, doublingSlopes };
}

function slopeOf(xs: readonly number[], ys: readonly number[]): number {
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (let k = 0; k < xs.length; k++) {
    covariance += (xs[k]! - meanX) * (ys[k]! - meanY);
    variance += (xs[k]! - meanX) ** 2;
  }
  return covariance / variance;
}
