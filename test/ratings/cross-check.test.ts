import EloRank from 'elo-rank';
import fc from 'fast-check';
import { Glicko2 } from 'glicko2';
import { rate, Rating, TrueSkill } from 'ts-trueskill';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRUESKILL, eloExpected, eloUpdate, GLICKO2_SCALE, glicko2Period, trueskillQuality, trueskillRate } from '../../src/ratings/index.js';
import { quality } from 'ts-trueskill';

/** Hundreds of random cases against independent implementations from npm (devDependencies). */
const RUNS = { numRuns: 300, seed: 12 };

describe('Glicko-2 against the glicko2 package', () => {
  // Tolerance: 1e-5 rating/deviation points and 1e-5 volatility. Both solve for the volatility
  // with the same Illinois iteration stopped at |B - A| <= 1e-6 (float order differs).
  it('one rating period, 1..6 opponents, wins, draws and losses', () => {
    const player = fc.record({
      rating: fc.double({ min: 800, max: 2400, noNaN: true }),
      rd: fc.double({ min: 30, max: 350, noNaN: true }),
      vol: fc.double({ min: 0.03, max: 0.09, noNaN: true }),
    });
    fc.assert(
      fc.property(player, fc.array(fc.tuple(player, fc.constantFrom(0, 0.5, 1)), { minLength: 1, maxLength: 6 }), fc.double({ min: 0.3, max: 1.2, noNaN: true }), (me, games, tau) => {
        const lib = new Glicko2({ tau, rating: 1500, rd: 350, vol: 0.06 });
        const libMe = lib.makePlayer(me.rating, me.rd, me.vol);
        lib.updateRatings(games.map(([o, s]) => [libMe, lib.makePlayer(o.rating, o.rd, o.vol), s]));
        const ours = glicko2Period(
          { mu: (me.rating - 1500) / GLICKO2_SCALE, phi: me.rd / GLICKO2_SCALE, sigma: me.vol },
          games.map(([o, score]) => ({ mu: (o.rating - 1500) / GLICKO2_SCALE, phi: o.rd / GLICKO2_SCALE, score })),
          tau,
        );
        expect(Math.abs(1500 + ours.mu * GLICKO2_SCALE - libMe.getRating())).toBeLessThan(1e-5);
        expect(Math.abs(ours.phi * GLICKO2_SCALE - libMe.getRd())).toBeLessThan(1e-5);
        expect(Math.abs(ours.sigma - libMe.getVol())).toBeLessThan(1e-5);
      }),
      RUNS,
    );
  });
});

describe('TrueSkill against ts-trueskill (a port of the reference Python package)', () => {
  const env = new TrueSkill(DEFAULT_TRUESKILL.mu, DEFAULT_TRUESKILL.sigma, DEFAULT_TRUESKILL.beta, DEFAULT_TRUESKILL.tau, DEFAULT_TRUESKILL.drawProbability);
  const skill = fc.record({ mu: fc.double({ min: 0, max: 50, noNaN: true }), sigma: fc.double({ min: 1, max: 9, noNaN: true }) });
  const game = fc
    .array(fc.array(skill, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 5 })
    .chain((teams) => fc.tuple(fc.constant(teams), fc.array(fc.integer({ min: 0, max: teams.length - 1 }), { minLength: teams.length, maxLength: teams.length })));

  // Tolerance: 1e-4 in mu and sigma. Both run the same schedule; they differ in the normal
  // distribution's numerics (ts-gaussian vs the Numerical Recipes erfc, ~1e-7 relative).
  it('teams of 1..3, 2..5 teams, random places with ties', () => {
    fc.assert(
      fc.property(game, ([teams, ranks]) => {
        const theirs = rate(teams.map((t) => t.map((s) => new Rating(s.mu, s.sigma))), ranks, null, 0.0001, env);
        const ours = trueskillRate(teams, ranks, DEFAULT_TRUESKILL);
        ours.forEach((team, i) =>
          team.forEach((s, k) => {
            expect(Math.abs(s.mu - theirs[i]![k]!.mu)).toBeLessThan(1e-4);
            expect(Math.abs(s.sigma - theirs[i]![k]!.sigma)).toBeLessThan(1e-4);
          }),
        );
      }),
      RUNS,
    );
  });

  it('match quality, tolerance 1e-9 (plain linear algebra on both sides)', () => {
    fc.assert(
      fc.property(game, ([teams]) => {
        const theirs = quality(teams.map((t) => t.map((s) => new Rating(s.mu, s.sigma))), undefined, env);
        expect(Math.abs(trueskillQuality(teams, DEFAULT_TRUESKILL) - theirs)).toBeLessThan(1e-9);
      }),
      RUNS,
    );
  });
});

describe('Elo against elo-rank', () => {
  // Tolerance: expectations 1e-12; elo-rank rounds its updates to whole points, so ours rounded equals it.
  it('expected scores and updates, K 8..64', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 3000 }), fc.integer({ min: 100, max: 3000 }), fc.constantFrom(0, 0.5, 1), fc.integer({ min: 8, max: 64 }), (a, b, s, k) => {
        const lib = new EloRank(k);
        const expected = lib.getExpected(a, b);
        expect(Math.abs(eloExpected(a, b, 400) - expected)).toBeLessThan(1e-12);
        const ours = eloUpdate(a, b, s, { kFactor: k, scale: 400 });
        // Skip exact .5 ties, where rounding of two equal values may differ in the last bit.
        if (Math.abs((ours % 1) - 0.5) > 1e-9) expect(Math.round(ours)).toBe(lib.updateRating(expected, s, a));
      }),
      RUNS,
    );
  });
});
