/**
 * Shows the complexity harness can fail: known operations are measured and must land in their
 * class, and the fit is checked on synthetic curves, including a cache staircase.
 */
import { describe, expect, test } from 'vitest';
import { checkCase } from './check.js';
import { fitGrowth, withinBudget, type SizePoint } from './classify.js';
import { arrayIncludes, binarySearch, mapLookup, sortCopy } from './reference-cases.js';
import { measureCase } from './measure.js';
import { formatVerdict } from './table.js';

const sizes = Array.from({ length: 9 }, (_, k) => 2 ** (8 + k));
function curve(timeOf: (n: number) => number): SizePoint[] {
  return sizes.map((n) => ({ n, nsPerCall: timeOf(n) }));
}

describe('fitGrowth on exact curves', () => {
  test.each([
    ['O(1)', (n: number) => 50 + 0 * n],
    ['O(log n)', (n: number) => 10 * Math.log2(n)],
    ['O(n)', (n: number) => 3 * n],
    ['O(n log n)', (n: number) => n * Math.log2(n)],
    ['O(n^2)', (n: number) => n * n],
  ] as const)('%s', (expected, timeOf) => {
    expect(fitGrowth(curve(timeOf)).fitted).toBe(expected);
  });

  test('a hash lookup falling out of L1 and L2 stays within O(1)', () => {
    // Measured on the 2-core dev VM: Map.get with string keys, 256..65536 entries.
    const staircase = [66, 67.5, 70.5, 76.9, 80.6, 105.6, 156, 284.6, 370.4];
    const fit = fitGrowth(sizes.map((n, k) => ({ n, nsPerCall: staircase[k]! })));
    expect(withinBudget(fit.fitted, 'O(1)')).toBe(true);
  });

  test('a structure whose staircase spans most of the range, then levels off, stays within O(1)', () => {
    // Measured: placement re-key on n servers, 2^10..2^16; both whole-range slopes reached 0.5.
    const staircase = [465.7, 751.4, 1360, 2090, 3010, 3150, 3350];
    const fit = fitGrowth(staircase.map((nsPerCall, k) => ({ n: 2 ** (10 + k), nsPerCall })));
    expect(fit.medianDoublingSlope).toBeGreaterThan(0.5);
    expect(withinBudget(fit.fitted, 'O(1)')).toBe(true);
  });

  test('a linear scan hidden behind a 2 µs operation is still O(n)', () => {
    expect(fitGrowth(curve((n) => 2000 + n)).fitted).toBe('O(n)');
  });
});

describe('measured reference operations', () => {
  const timeoutMs = 60_000;

  test('Array.prototype.includes is O(n) and fails an O(1) budget', () => {
    const verdict = checkCase(arrayIncludes);
    console.log(formatVerdict(verdict));
    expect(verdict.fit.fitted).toBe('O(n)');
    expect(verdict.passed).toBe(false);
    expect(verdict.remeasured).toBe(true);
  }, timeoutMs);

  test('Map.get passes an O(1) budget', () => {
    const verdict = checkCase(mapLookup);
    console.log(formatVerdict(verdict));
    expect(verdict.passed).toBe(true);
  }, timeoutMs);

  test('binary search of a sorted array is within O(log n)', () => {
    const verdict = checkCase(binarySearch);
    console.log(formatVerdict(verdict));
    expect(verdict.passed).toBe(true);
    expect(withinBudget(verdict.fit.fitted, 'O(1)')).toBe(true);
  }, timeoutMs);

  test('sorting n numbers is O(n log n): within that budget, above O(1)', () => {
    const verdict = checkCase(sortCopy);
    console.log(formatVerdict(verdict));
    expect(verdict.passed).toBe(true);
    expect(withinBudget(verdict.fit.fitted, 'O(1)')).toBe(false);
  }, timeoutMs);
});

describe('a case still measuring past its limit', () => {
  test('fails with the reason, instead of running on (a case whose cost grows with the calls made once ran 15-20 minutes)', () => {
    // Any case measures for longer than 50 ms (9 rounds of samples of 3 ms at each size).
    const started = performance.now();
    expect(() => measureCase(mapLookup, { maxCaseMs: 50 })).toThrow(/still measuring after \d+ s \(limit 0.05 s\): its cost grows with the calls made/);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
