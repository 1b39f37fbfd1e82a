import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { solveSlice, type CompetitiveTicket, type SliceSolver } from '../../src/competitive/index.js';
import { config, matcher, solo, steps } from './fixtures.js';

/**
 * A batch that starts most of the pool builds the new pool from its leftovers instead of deleting
 * every started ticket (issue 15). Both ways must leave the same tickets in the same arrival order,
 * which the next batch's ties depend on.
 */
describe('competitive pool after a batch', () => {
  it('leaves the same leftovers, in the same order, whether rebuilt or deleted from', async () => {
    // Few distinct scores and narrow windows: many ties, and leftovers that pair in later batches;
    // vetoes (a or b, never both: that is refused) keep some ties apart, so leftovers share scores.
    const ticketArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 2 })), {
      minLength: 1,
      maxLength: 40,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(ticketArb, { minLength: 1, maxLength: 4 }), async (rounds) => {
        const c = config({ expansion: steps([0, 0], [2_000, 1], [4_000, 3]), maps: ['a', 'b'] });
        const rebuilt = matcher(c, 7);
        const deleted = matcher(c, 7);
        // While deleted's batch is out, a stranger comes and goes: the pool holds the same tickets
        // at apply, but it is no longer known to be exactly the batch, so its tickets are deleted.
        const solver: SliceSolver = {
          solve: async (task) => {
            deleted.add(solo('stranger', 0));
            deleted.remove('stranger');
            return solveSlice(task, () => 0);
          },
        };
        let id = 0;
        for (const [r, round] of rounds.entries()) {
          const now = r * 2_500;
          for (const [score, age, veto] of round) {
            const vetoed = ['a', 'b'].filter((_, bit) => (veto & (1 << bit)) !== 0);
            const ticket: CompetitiveTicket = solo(`t${id++}`, score / 2, { enqueuedAt: now - age, vetoed });
            rebuilt.add(ticket);
            deleted.add(ticket);
          }
          // The same stranger (its score counts in the distribution) before rebuilt's batch.
          rebuilt.add(solo('stranger', 0));
          rebuilt.remove('stranger');
          const expected = await deleted.formGamesOn(now, solver);
          expect(rebuilt.formGames(now)).toEqual(expected);
          expect(rebuilt.size).toBe(deleted.size);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps leftovers removable and started tickets gone after a batch that took most of the pool', () => {
    const m = matcher(config());
    for (const [id, score] of [['a', 1], ['b', 1.1], ['c', 5], ['d', 5.1], ['e', 9]] as const) m.add(solo(id, score));
    expect(m.formGames(0)).toHaveLength(2);
    expect(m.size).toBe(1);
    expect(m.remove('a')).toBe(false);
    expect(m.remove('e')).toBe(true);
    m.add(solo('a', 1)); // a started ticket's id may wait again
    expect(m.size).toBe(1);
  });

  it('widens a batch entry’s window by the ticket’s score uncertainty', () => {
    const m = matcher(config({ expansion: steps([0, 0.5]) }));
    m.add({ ...solo('sure', 0) });
    m.add({ ...solo('unsure', 1), scoreUncertainty: 1 });
    expect(m.formGames(0)).toHaveLength(0); // 'sure' has a 0.5 window: the gap 1 is outside it
    m.add({ ...solo('also-unsure', 1.8), scoreUncertainty: 1 });
    expect(m.formGames(0).map((g) => g.teams.flat().sort())).toEqual([['also-unsure', 'unsure']]);
  });
});
