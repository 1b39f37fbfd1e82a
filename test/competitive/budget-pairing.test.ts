import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedBatch, type BatchEntry } from '../../src/competitive/batch-entry.js';
import { pairWithinBudgets, type BudgetPairingContext } from '../../src/competitive/budget-pairing.js';
import { SoftPreferences } from '../../src/competitive/index.js';
import { VenueChoice } from '../../src/competitive/venue-choice.js';
import { config, matcher, pairsOf, solo } from './fixtures.js';

const NO_VENUE = new VenueChoice([], []);

/** Sorted entries from [id, score, window, waitMs] rows. */
function entries(rows: [string, number, number, number?][], latency?: Record<string, Record<string, number>>, language?: Record<string, string>): BatchEntry[] {
  return rows.map(([id, score, window, waitMs], index) => ({
    ticket: {
      ...solo(id, score, { latency: latency?.[id] }),
      ...(language?.[id] !== undefined && { softAttributes: new Map([['language', language[id]!]]) }),
    },
    index,
    size: 1,
    score,
    waitMs: waitMs ?? 0,
    maxScoreGap: window,
    maxLatencyMs: Infinity,
  }));
}

/** The pairs chosen among sorted entries, as "low+high" ticket ids. */
function pair(sorted: readonly BatchEntry[], venue: VenueChoice, sigma: number, context?: BudgetPairingContext): string[] {
  const positions = pairWithinBudgets(SortedBatch.of(sorted), 0, sorted.length, venue, sigma, context);
  const out: string[] = [];
  for (let g = 0; g < positions.length; g += 2) {
    out.push(`${sorted[positions[g]!]!.ticket.ticketId}+${sorted[positions[g + 1]!]!.ticket.ticketId}`);
  }
  return out;
}

describe('budget pairing (1v1 under a wait target)', () => {
  it('pairs when the gap is under the mean of the two windows, and only then', () => {
    expect(pair(entries([['a', 0, 10], ['b', 9, 10]]), NO_VENUE, 100)).toEqual(['a+b']);
    expect(pair(entries([['a', 0, 10], ['b', 11, 10]]), NO_VENUE, 100)).toEqual([]);
    expect(pair(entries([['a', 0, 4], ['b', 11, 20]]), NO_VENUE, 100)).toEqual(['a+b']);
  });

  it('does not split two close neighbours to make two wider games (most games is not the aim)', () => {
    // b and c are 1 apart; a-b and c-d are 8 apart, under the windows but far more than waiting costs.
    const sorted = entries([['a', 0, 10], ['b', 8, 10], ['c', 9, 10], ['d', 17, 10]]);
    expect(pair(sorted, NO_VENUE, 100)).toEqual(['b+c']);
  });

  it('never leaves a ticket past its budget behind for a younger one: of an odd batch, the youngest waits', () => {
    const sorted = entries([
      ['old', 0, Infinity, 9_000],
      ['young', 50, Infinity, 100],
      ['middle', 100, Infinity, 5_000],
    ]);
    // Neighbours alone could only leave old or middle; pairing over one leaves the young one.
    expect(pair(sorted, NO_VENUE, 100)).toEqual(['old+middle']);
  });

  it('a window that would take anyone (8 sigmas) counts as overdue: everyone plays, the youngest waits', () => {
    const sorted = entries([
      ['a', 0, 800, 300],
      ['b', 10, 800, 200],
      ['c', 20, 800, 100],
    ]);
    expect(pair(sorted, NO_VENUE, 100)).toEqual(['a+b']);
  });

  it('counts latency only above what the players would have anywhere', () => {
    const venue = new VenueChoice([], ['eu', 'us']);
    const context = { soft: new SoftPreferences([]), softPreferences: [], regions: ['eu', 'us'], maps: [] };
    // b is far from every region: the 190 ms of any game of b's does not hold the pair back.
    const far = entries([['a', 0, 10], ['b', 5, 10]], { a: { eu: 20, us: 300 }, b: { eu: 190, us: 300 } });
    expect(pair(far, venue, 100, context)).toEqual(['a+b']);
    // Each is 20 ms from a different region: any game of the two is 280 ms above what either
    // could have, worth waiting for.
    const apart = entries([['a', 0, 10], ['b', 5, 10]], { a: { eu: 20, us: 300 }, b: { eu: 300, us: 20 } });
    expect(pair(apart, venue, 100, context)).toEqual([]);
  });

  it('soft preferences choose among games without holding a ticket back', () => {
    const preferences = [{ attribute: 'language', weight: 0.25 }];
    const context = { soft: new SoftPreferences(preferences), softPreferences: preferences, regions: [], maps: [] };
    // Different languages, gap under the windows: they still play (waiting does not make a
    // same-language partner come).
    const apart = entries([['a', 0, 10], ['b', 9, 10]], undefined, { a: 'fr', b: 'de' });
    expect(pair(apart, NO_VENUE, 100, context)).toEqual(['a+b']);
    // Among games the windows allow, a shared language wins over a closer gap.
    const choice = entries([['a', 0, 10], ['b', 4, 10], ['c', 7, 10]], undefined, { a: 'fr', b: 'de', c: 'fr' });
    expect(pair(choice, NO_VENUE, 100, context)).toEqual(['a+c']);
  });

  it('a batch cut into slices forms exactly the games of the whole batch', () => {
    // Slices are at least 4,096 tickets; a pool twice that, with windows that let neighbours and
    // neighbours-but-one pair across the cuts, tests the cut rule.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        let state = seed;
        const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
        const budget = config({ pairWindow: 'budget', expansion: [{ afterMs: 0, maxScoreGap: 3, maxLatencyMs: Infinity }] });
        const whole = matcher(budget);
        // Scores without ties: equal costs reached through different sums may round apart.
        const tickets = Array.from({ length: 9_000 }, (_, i) => solo(`t${i}`, next() * 20_000, { enqueuedAt: Math.floor(next() * 1000) }));
        for (const t of tickets) whole.add(t);
        const games = whole.formGames(2_000);
        // The same batch, solved as one slice by the pairing itself.
        const sorted = [...tickets]
          .map((t) => ({ t, s: t.players[0]!.score }))
          .sort((a, b) => a.s - b.s);
        const all = sorted.map(({ t, s }, index) => ({ ticket: t, index, size: 1, score: s, waitMs: 2_000 - t.enqueuedAt, maxScoreGap: 3, maxLatencyMs: Infinity }));
        const expected = pair(all, NO_VENUE, whole.stats().scoreStdDev).map((p) => p.split('+').sort().join('+'));
        expect(pairsOf(games)).toEqual(expected.sort());
      }),
      { numRuns: 3 },
    );
  });
});
