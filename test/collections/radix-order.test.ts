import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { radixOrder } from '../../src/collections/radix-order.js';

/** The order radixOrder promises: ascending key, ties (−0 and +0 included) by index. */
function comparatorOrder(keys: readonly number[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
}

describe('radixOrder', () => {
  it('orders finite keys as a stable comparator sort does, ties by index', () => {
    const key = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, -0, 1, -1, 0.5, -0.5, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE),
      fc.integer({ min: -3, max: 3 }),
    );
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (keys) => {
        expect([...radixOrder(Float64Array.from(keys))]).toEqual(comparatorOrder(keys));
      }),
      { numRuns: 300 },
    );
    // Small batches are sorted by comparison; these are long enough for the radix passes.
    fc.assert(
      fc.property(fc.array(key, { minLength: 1024, maxLength: 1500 }), (keys) => {
        expect([...radixOrder(Float64Array.from(keys))]).toEqual(comparatorOrder(keys));
      }),
      { numRuns: 30 },
    );
  });

  it('orders a large batch of normal-like scores, where the high digits are shared and skipped', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => Math.sin(i * 12.9898) * 3 + (i % 7 === 0 ? 0 : 1e-9 * i));
    expect([...radixOrder(Float64Array.from(keys))]).toEqual(comparatorOrder(keys));
  });

  // Keys that share their high 32 bits are ordered by the low ones after the radix passes: short
  // runs by insertion, long runs by comparison, runs already in order (integer ratings) left alone.
  it('orders keys that differ only in the last bits of the mantissa, in short and long runs', () => {
    const offsets = fc.array(fc.integer({ min: 0, max: 2 ** 20 }), { minLength: 1024, maxLength: 1500 });
    fc.assert(
      fc.property(offsets, fc.integer({ min: 1, max: 400 }), fc.boolean(), (raw, groups, negative) => {
        // 1 + k·2^-52 keeps the high half of 1 for k < 2^20; `groups` bases make runs of every length.
        const keys = raw.map((k, i) => (negative ? -1 : 1) * ((1 + (i % groups)) * 1024 + k * 2 ** -42));
        expect([...radixOrder(Float64Array.from(keys))]).toEqual(comparatorOrder(keys));
      }),
      { numRuns: 40 },
    );
    const ratings = Array.from({ length: 5_000 }, (_, i) => 1500 + ((i * 37) % 11) * 25);
    expect([...radixOrder(Float64Array.from(ratings))]).toEqual(comparatorOrder(ratings));
  });

  it('handles the empty and the single-key batch', () => {
    expect([...radixOrder(new Float64Array(0))]).toEqual([]);
    expect([...radixOrder(Float64Array.of(-0))]).toEqual([0]);
  });
});
