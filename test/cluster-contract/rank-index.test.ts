/** The FIFO rule's order-statistics set, against a sorted array. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RankIndex } from '../../src/cluster/contract/rank-index.js';

describe('RankIndex', () => {
  it('counts members below a value and finds the k-th, across growth', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(1000)), { maxLength: 200 }), fc.nat(1100), (ops, probe) => {
        const index = new RankIndex();
        const model = new Set<number>();
        for (const [add, v] of ops) {
          if (add) (index.add(v), model.add(v));
          else (index.delete(v), model.delete(v));
        }
        const sorted = [...model].sort((a, b) => a - b);
        expect(index.size).toBe(sorted.length);
        expect(index.below(probe)).toBe(sorted.filter((v) => v < probe).length);
        expect(sorted.map((_, i) => index.kth(i + 1))).toEqual(sorted);
        expect(index.kth(sorted.length + 1)).toBeUndefined();
      }),
    );
  });
});
