import { describe, expect, it } from 'vitest';
import { DEFAULT_ELO, DEFAULT_GLICKO2, DEFAULT_TRUESKILL, eloSystem, glicko2System, trueskillSystem } from '../../src/ratings/index.js';
import type { SimPlayer } from '../../src/simulation/population.js';
import { RatingLedger } from '../../src/simulation/rating-ledger.js';
import { Sampler } from '../../src/simulation/sampling.js';

/** Six players 200 apart in true skill, each game's luck N(0, 100) a player: upsets between neighbours ~8%. */
const PLAYERS: SimPlayer[] = [1000, 1600, 1200, 2000, 1400, 1800].map((trueSkill, index) => ({
  id: `p${index}`,
  index,
  trueSkill,
  region: 'r',
  location: { latitude: 0, longitude: 0 },
  language: 'en',
  routeFactor: 1,
}));

function play(ledger: RatingLedger, games: number, seed: number, upsideDown = false): void {
  const draw = new Sampler(seed);
  for (let g = 0; g < games; g++) {
    const a = PLAYERS[draw.int(PLAYERS.length)]!;
    let b = PLAYERS[draw.int(PLAYERS.length - 1)]!;
    if (b === a) b = PLAYERS[PLAYERS.length - 1]!;
    const aWins = draw.normal(a.trueSkill, 100) > draw.normal(b.trueSkill, 100) !== upsideDown;
    ledger.record([[a], [b]], aWins ? [0, 1] : [1, 0], g * 60_000);
  }
}

const byRating = (ledger: RatingLedger): string[] =>
  [...PLAYERS].sort((x, y) => ledger.system.score(ledger.of(x)) - ledger.system.score(ledger.of(y))).map((p) => p.id);
const byTruth = [...PLAYERS].sort((x, y) => x.trueSkill - y.trueSkill).map((p) => p.id);

describe('ratings in the simulation converge to the true order', () => {
  for (const system of [eloSystem(DEFAULT_ELO), glicko2System(DEFAULT_GLICKO2), trueskillSystem(DEFAULT_TRUESKILL)]) {
    it(`${system.name}: after 600 random pairings the ladder's order is the true-skill order`, () => {
      const ledger = new RatingLedger(system, PLAYERS);
      expect(byRating(ledger)).not.toEqual(byTruth); // all equal at the start: the order is the given one
      play(ledger, 600, 42);
      expect(byRating(ledger)).toEqual(byTruth);
      expect(ledger.of(PLAYERS[0]!).games + ledger.of(PLAYERS[1]!).games).toBeGreaterThan(100);
      // The higher-rated side's win rate is tallied per hour (600 games of a minute = 10 hours).
      expect(ledger.higherRatedWins.length).toBe(10);
      const late = ledger.higherRatedWins.at(-1)!;
      expect(late.wins / late.games).toBeGreaterThan(0.75);
    });
  }

  it('the rating error measure: a perfect ladder has error 0 for everyone, a reversed one does not', () => {
    const perfect = new RatingLedger(eloSystem(DEFAULT_ELO), PLAYERS);
    play(perfect, 600, 42);
    perfect.error.snapshot();
    expect(perfect.error.withinAfter(1)).toBe(1);
    expect(perfect.error.byGames().every((g) => g.meanError === 0)).toBe(true);
    const reversed = new RatingLedger(eloSystem(DEFAULT_ELO), PLAYERS);
    play(reversed, 600, 42, true);
    reversed.error.snapshot();
    expect(reversed.error.withinAfter(1)).toBe(0);
    expect(reversed.error.byGames().every((g) => g.meanError > 0.2)).toBe(true);
  });
});
