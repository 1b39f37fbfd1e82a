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
        const table = new SingleTable(16);
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
            const slot = table.get(position, valueOf(value));
            expect(slot < 0 ? -1 : table.idAt(slot)).toBe(model.get(`${position}/${value}`) ?? -1);
            if (slot >= 0) expect(table.slotOf(table.idAt(slot))).toBe(slot);
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
      const table = new SingleTable(16);
      table.add(0, first, 7);
      expect(table.get(0, second)).toBe(-1);
      table.add(0, second, 8);
      const idOf = (value: string): number => (table.get(0, value) < 0 ? -1 : table.idAt(table.get(0, value)));
      expect([idOf(first), idOf(second)]).toEqual([7, 8]);
      table.delete(0, first);
      expect([idOf(first), idOf(second)]).toEqual([-1, 8]);
    }
  });

  it('names the missing subset when asked to delete it', () => {
    const table = new SingleTable(16);
    table.add(0, 'a', 0);
    expect(() => table.delete(1, 'a')).toThrow(/1=a is not in the table/);
  });
});

describe('BucketHeaps', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('push' as const), bucket: fc.integer({ min: 0, max: 11 }), value: fc.integer({ min: 0, max: 1_000 }) }),
    fc.record({ kind: fc.constant('pop' as const), bucket: fc.integer({ min: 0, max: 11 }), value: fc.constant(0) }),
    // One-attribute subsets with no places come and go: the table grows and shifts slots, whose
    // bucket records (those of the two one-attribute subsets under test) move with them.
    fc.record({ kind: fc.constant('filler' as const), bucket: fc.constant(0), value: fc.integer({ min: 0, max: 60 }) }),
  );

  it('keeps every bucket its own entries while regions grow, free and are reused and table slots move', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 100, maxLength: 800 }), (ops) => {
        const heaps = new BucketHeaps(4);
        // Subset 0 has its buckets in BucketHeaps' own records, subsets 1 and 2 in table slots.
        const subsets = [heaps.newSubset(), heaps.newSubset(), heaps.newSubset()];
        heaps.singles.add(0, 'one', subsets[1] as number);
        heaps.singles.add(1, 'one', subsets[2] as number);
        const fillers = new Map<number, number>();
        const model = Array.from({ length: 12 }, () => [] as number[]);
        // Model bucket b: subset b >> 2, open slots 1 + (b & 3).
        const bucketOf = (b: number): number => heaps.bucket(subsets[b >> 2] as number, 1 + (b & 3));
        for (const { kind, bucket, value } of ops) {
          const entries = model[bucket] as number[];
          if (kind === 'push') {
            const at = heaps.append(bucketOf(bucket));
            heaps.storage(bucketOf(bucket))[heaps.base(bucketOf(bucket)) + at] = value;
            entries.push(value);
          } else if (kind === 'pop' && entries.length > 0) {
            entries.pop();
            heaps.shrink(bucketOf(bucket));
          } else if (kind === 'filler' && fillers.has(value)) {
            heaps.singles.delete(0, `f${value}`);
            heaps.freeSubset(fillers.get(value) as number);
            fillers.delete(value);
          } else if (kind === 'filler') {
            const id = heaps.newSubset();
            heaps.singles.add(0, `f${value}`, id);
            fillers.set(value, id);
          }
        }
        for (let b = 0; b < 12; b++) {
          const bucket = bucketOf(b);
          const base = heaps.base(bucket);
          const stored = Array.from({ length: heaps.length(bucket) }, (_, i) => heaps.storage(bucket)[base + i]);
          expect(stored).toEqual(model[b]);
        }
        for (const id of fillers.values()) for (let slots = 1; slots <= 4; slots++) expect(heaps.length(heaps.bucket(id, slots))).toBe(0);
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
