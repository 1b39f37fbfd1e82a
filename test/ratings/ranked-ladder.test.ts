import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RankedLadder } from '../../src/ratings/ranked-ladder.js';

/** The model: a plain array sorted into leaderboard order. */
function modelOrder(model: Map<string, number>): string[] {
  return [...model].sort(([pa, a], [pb, b]) => b - a || (pa < pb ? -1 : pa > pb ? 1 : 0)).map(([p]) => p);
}

describe('RankedLadder (order-statistic treap)', () => {
  it('agrees with a sorted-array model on rank, page and size through sets and deletes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), player: fc.integer({ min: 0, max: 40 }), standing: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('delete' as const), player: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 20 }), (ops, offset, limit) => {
        const ladder = new RankedLadder();
        const model = new Map<string, number>();
        for (const o of ops) {
          const player = `p${o.player}`;
          if (o.kind === 'set') {
            ladder.set(player, o.standing);
            model.set(player, o.standing);
          } else {
            expect(ladder.delete(player)).toBe(model.delete(player));
          }
        }
        const order = modelOrder(model);
        expect(ladder.size).toBe(order.length);
        order.forEach((p, i) => expect(ladder.rank(p)).toBe(i + 1));
        expect(ladder.page(offset, limit).map((e) => e.player)).toEqual(order.slice(offset, offset + limit));
        expect(ladder.rank('nobody')).toBeUndefined();
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('ties keep a stable order by player id, and a page past the end is empty', () => {
    const ladder = new RankedLadder();
    for (const p of ['c', 'a', 'b']) ladder.set(p, 10);
    ladder.set('top', 11);
    expect(ladder.page(0, 10).map((e) => e.player)).toEqual(['top', 'a', 'b', 'c']);
    expect(ladder.page(4, 10)).toEqual([]);
    expect(ladder.standingOf('b')).toBe(10);
  });
});
