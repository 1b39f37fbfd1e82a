import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketHeaps } from '../../src/cooperative/bucket-heaps.js';
import { hashOf, SingleTable } from '../../src/cooperative/single-table.js';

/**
 * The open-game index's typed storage against plain JS models: the one-attribute subset table
 * (open addressing, backward-shift deletion: many keys in a table that starts at 64 slots, so
 * probe runs collide and wrap) and the heaps' storage (inline, moves to bigger regions and back
 * inline, reuse of freed regions).
 */
describe('SingleTable', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), position: fc.integer({ min: 0, max: 2 }), value: fc.integer({ min: 0, max: 80 }) }),
    fc.record({ kind: fc.constant('delete' as const), position: fc.integer({ min: 0, max: 2 }), value: fc.integer({ min: 0, max: 80 }) }),
  );

  // Short values are compared inside the table's slots, long ones (over 8 units) with the string.
  const valueOf = (v: number): string => (v % 3 === 0 ? `a long value ${v}` : `v${v}`);

  it('finds exactly the subsets added and not deleted, by position and value', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 100, maxLength: 600 }), (ops) => {
        const table = new SingleTable();
        const model = new Map<string, number>();
        let nextId = 0;
        for (const { kind, position, value } of ops) {
          const key = `${position}/${value}`;
          // Values overlap across positions on purpose: 'v7' at position 0 and at 1 are two subsets.
          if (kind === 'add' && !model.has(key)) {
            table.add(position, valueOf(value), nextId);
            model.set(key, nextId++);
          } else if (kind === 'delete' && model.has(key)) {
            table.delete(position, valueOf(value));
            model.delete(key);
          }
        }
        for (let position = 0; position <= 2; position++) {
          for (let value = 0; value <= 80; value++) {
            expect(table.get(position, valueOf(value))).toBe(model.get(`${position}/${value}`) ?? -1);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('tells apart values whose hashes are equal, short (compared in the slot) and long', () => {
    for (const prefix of ['c', 'a longer value ']) {
      const seen = new Map<number, string>();
      let pair: [string, string] | undefined;
      // Same length (seven digits), so only the units tell them apart.
      for (let i = 1_000_000; pair === undefined; i++) {
        const value = `${prefix}${i}`;
        const other = seen.get(hashOf(0, value));
        if (other !== undefined) pair = [other, value];
        seen.set(hashOf(0, value), value);
      }
      const [first, second] = pair;
      const table = new SingleTable();
      table.add(0, first, 7);
      expect(table.get(0, second)).toBe(-1);
      table.add(0, second, 8);
      expect([table.get(0, first), table.get(0, second)]).toEqual([7, 8]);
      table.delete(0, first);
      expect([table.get(0, first), table.get(0, second)]).toEqual([-1, 8]);
    }
  });

  it('names the missing subset when asked to delete it', () => {
    const table = new SingleTable();
    table.add(0, 'a', 0);
    expect(() => table.delete(1, 'a')).toThrow(/1=a is not in the table/);
  });
});

describe('BucketHeaps', () => {
  const op = fc.record({ push: fc.boolean(), bucket: fc.integer({ min: 0, max: 7 }), value: fc.integer({ min: 0, max: 1_000 }) });

  it('keeps every bucket its own entries while regions grow, free and are reused', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 100, maxLength: 800 }), (ops) => {
        const heaps = new BucketHeaps(4);
        const subsets = [heaps.newSubset(), heaps.newSubset()];
        const model = Array.from({ length: 8 }, () => [] as number[]);
        // Model bucket b: subset b >> 2, open slots 1 + (b & 3).
        const bucketOf = (b: number): number => heaps.bucket(subsets[b >> 2] as number, 1 + (b & 3));
        for (const { push, bucket, value } of ops) {
          const entries = model[bucket] as number[];
          if (push) {
            const at = heaps.append(bucketOf(bucket));
            heaps.storage(bucketOf(bucket))[heaps.base(bucketOf(bucket)) + at] = value;
            entries.push(value);
          } else if (entries.length > 0) {
            entries.pop();
            heaps.shrink(bucketOf(bucket));
          }
        }
        for (let b = 0; b < 8; b++) {
          const bucket = bucketOf(b);
          const base = heaps.base(bucket);
          const stored = Array.from({ length: heaps.length(bucket) }, (_, i) => heaps.storage(bucket)[base + i]);
          expect(stored).toEqual(model[b]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses to free a subset that still has entries', () => {
    const heaps = new BucketHeaps(4);
    const id = heaps.newSubset();
    heaps.append(heaps.bucket(id, 2));
    expect(() => heaps.freeSubset(id)).toThrow(/still has places in bucket 2/);
  });
});
