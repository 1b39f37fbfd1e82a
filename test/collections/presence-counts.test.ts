import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PresenceCounts } from '../../src/collections/presence-counts.js';

describe('PresenceCounts', () => {
  it('counts the present members below a value as a list of them would, through any adds and removes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 40 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: -22, max: 22 })), { maxLength: 80 }),
        (members, ops) => {
          const counts = new PresenceCounts(members);
          const universe = [...members];
          const present: number[] = [];
          for (const [add, value] of ops) {
            if (add) {
              const room = universe.filter((m) => m === value).length > present.filter((m) => m === value).length;
              expect(counts.add(value)).toBe(room);
              if (room) present.push(value);
            } else {
              const at = present.indexOf(value);
              expect(counts.remove(value)).toBe(at >= 0);
              if (at >= 0) present.splice(at, 1);
            }
            for (let probe = -22; probe <= 22; probe += 3) expect(counts.below(probe)).toBe(present.filter((m) => m < probe).length);
            expect(counts.size).toBe(present.length);
          }
        },
      ),
    );
  });
});
