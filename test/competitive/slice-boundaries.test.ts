import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { config, matcher, party, solo } from './fixtures.js';

describe('team slices end on game boundaries', () => {
  it('a dense batch of solos leaves only what cannot make a game, however many slices it takes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 1, max: 1_000 }), (n, seed) => {
        const m = matcher(config({ teamSize: 5, batch: { maxTickets: 100_000, intervalMs: 1_000 } }), seed);
        for (let i = 0; i < n; i++) m.add(solo(`p${i}`, Math.sin(seed * 7 + i) * 3));
        const games = m.formGames(0);
        // Slices of 256 solos used to send 6 players of each back to the pool.
        expect(games).toHaveLength(Math.floor(n / 10));
        expect(m.size).toBe(n % 10);
      }),
      { numRuns: 25 },
    );
  });

  it('with parties, places every ticket once: in one game or back in the pool', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 200, maxLength: 900 }), fc.integer(), (sizes, seed) => {
        const m = matcher(config({ teamSize: 5, batch: { maxTickets: 100_000, intervalMs: 1_000 } }), seed);
        sizes.forEach((size, i) => m.add(party(`t${i}`, Array.from({ length: size }, (_, k) => (i % 97) + k))));
        const games = m.formGames(0);
        const placed = games.flatMap((g) => g.teams.flat());
        expect(new Set(placed).size).toBe(placed.length);
        expect(placed.length + m.size).toBe(sizes.length);
      }),
      { numRuns: 15 },
    );
  });
});
