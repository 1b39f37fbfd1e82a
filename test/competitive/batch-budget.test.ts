import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompetitiveMatcher, seededRandom } from '../../src/competitive/index.js';
import { config, solo } from './fixtures.js';

/** A manual clock: every reading advances it by 1 ms, so the climb's clock checks spend the budget. */
function tickingClock(): { now: () => number; readonly elapsed: number } {
  let t = 0;
  return {
    now: () => (t += 1),
    get elapsed() {
      return t;
    },
  };
}

describe('the hill-climb budget of a batch', () => {
  it('passes the time settled slices leave unused to the slices after them', () => {
    const clock = tickingClock();
    const m = new CompetitiveMatcher(config({ teamSize: 5, hillClimbBudgetMs: 100, batch: { maxTickets: 100_000, intervalMs: 1_000 } }), {
      now: clock.now,
      random: seededRandom(3),
    });
    // Nine slices of 260 equal scores (settled games, nothing to climb), then one of 260 spread
    // scores whose 26 games all want moves: its own share (10 ms, 10 clock checks of 32 moves) is
    // not enough to converge, the nine slices' unused time is.
    for (let i = 0; i < 2_340; i++) m.add(solo(`even${i}`, 0));
    for (let i = 0; i < 260; i++) m.add(solo(`spread${i}`, 100 + ((i * 37) % 260) * 4));
    expect(m.formGames(0)).toHaveLength(260);
    const report = m.lastBatch();
    expect(report?.converged).toBe(true);
    expect(report?.climbAttempts).toBeGreaterThan(32 * 10);
    expect(clock.elapsed).toBeLessThanOrEqual(100 + 4 * 10);
  });

  it('bounds the whole solve on a manual clock, whatever the batch', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 1_500 }), fc.integer({ min: 0, max: 60 }), fc.integer(), (n, budget, seed) => {
        const clock = tickingClock();
        const m = new CompetitiveMatcher(config({ teamSize: 5, hillClimbBudgetMs: budget, batch: { maxTickets: 100_000, intervalMs: 1_000 } }), {
          now: clock.now,
          random: seededRandom(seed),
        });
        const random = seededRandom(seed ^ 0x5bd1);
        for (let i = 0; i < n; i++) m.add(solo(`p${i}`, Math.floor(random() * 3_000)));
        m.formGames(0);
        // A slice reads the clock at its start and end, at its solve's start and at each climb
        // check, so it may pass its deadline by a few readings; slices hold at least 256 tickets.
        const slices = Math.ceil(n / 256);
        expect(clock.elapsed).toBeLessThanOrEqual(budget + 4 * slices);
      }),
      { numRuns: 30 },
    );
  });
});
