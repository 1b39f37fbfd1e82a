import { quality, Rating } from 'ts-trueskill';
import { describe, expect, it } from 'vitest';
import { predictedBalance, seededRandom } from '../../src/competitive/index.js';
import { config, matcher, party, solo } from './fixtures.js';

const BETA = 25 / 6;
const p = (score: number, uncertainty = 0) => ({ score, uncertainty });

describe('a game\'s predicted balance (TrueSkill model)', () => {
  it('1v1 at TrueSkill defaults: match quality 0.447, a coin toss (reference value)', () => {
    const balance = predictedBalance([[p(25, 25 / 3)], [p(25, 25 / 3)]], BETA);
    // TrueSkill's published reference: quality_1vs1(Rating(), Rating()) = 0.4472135954999579.
    expect(balance.matchQuality).toBeCloseTo(0.4472135954999579, 12);
    expect(balance.favouriteWinProbability).toBeCloseTo(0.5, 6);
  });

  it('2v2 unbalanced (15/8, 20/6 against 25/4, 30/3): match quality 0.214 (reference value)', () => {
    // Moserware's TrueSkill tests, TwoOnTwoUnbalancedDrawTest: quality 0.214.
    const teams = [
      [p(15, 8), p(20, 6)],
      [p(25, 4), p(30, 3)],
    ];
    const balance = predictedBalance(teams, BETA);
    expect(balance.matchQuality).toBeCloseTo(0.214, 3);
    const theirs = quality(teams.map((t) => t.map((x) => new Rating(x.score, x.uncertainty))));
    expect(Math.abs(balance.matchQuality - theirs)).toBeLessThan(1e-9);
    // The favourite (55 against 35, c^2 = 4 beta^2 + 125) wins with Phi(20 / sqrt(194.44)).
    expect(balance.favouriteWinProbability).toBeCloseTo(0.9243, 4);
  });

  it('known scores (no uncertainty): the favourite wins with Phi(gap / (sqrt 2 beta))', () => {
    const balance = predictedBalance([[p(1600)], [p(1500)]], 150);
    // Phi(100 / 212.13) = Phi(0.4714) = 0.6813.
    expect(balance.favouriteWinProbability).toBeCloseTo(0.6813, 4);
    expect(balance.matchQuality).toBeCloseTo(Math.exp(-(100 * 100) / (2 * 2 * 150 * 150)), 12);
  });

  it('three teams: the chance the strongest places first agrees with a seeded Monte Carlo', () => {
    const teams = [[p(20, 8)], [p(25, 6)], [p(35, 7)]];
    const balance = predictedBalance(teams, BETA);
    const random = seededRandom(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    let wins = 0;
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const perf = teams.map(([x]) => x!.score + Math.sqrt(BETA ** 2 + x!.uncertainty ** 2) * normal());
      if (perf[2]! > perf[0]! && perf[2]! > perf[1]!) wins += 1;
    }
    expect(Math.abs(balance.favouriteWinProbability - wins / draws)).toBeLessThan(0.005);
    const theirs = quality(teams.map((t) => t.map((x) => new Rating(x.score, x.uncertainty))));
    expect(Math.abs(balance.matchQuality - theirs)).toBeLessThan(1e-9);
  });

  it('every formed game carries it, with the factory performanceSd and the tickets\' uncertainty', () => {
    const m = matcher(config({ performanceSd: 150 }));
    m.add(solo('a', 1600));
    m.add({ ...solo('b', 1500), scoreUncertainty: 80 });
    const [game] = m.formGames(1000);
    // c^2 = 2 x 150^2 + 80^2 = 51,400; Phi(100 / 226.72) = Phi(0.4411) = 0.6704.
    expect(game!.quality.favouriteWinProbability).toBeCloseTo(0.6704, 4);
    expect(game!.quality.matchQuality).toBeCloseTo(Math.sqrt(45_000 / 51_400) * Math.exp(-10_000 / (2 * 51_400)), 10);
  });

  it('teams sum their players: a 2v2 of parties is balanced by totals', () => {
    const m = matcher(config({ teamSize: 2, performanceSd: 100 }));
    m.add(party('a', [1700, 1300]));
    m.add(party('b', [1500, 1500]));
    const [game] = m.formGames(1000);
    expect(game!.quality.favouriteWinProbability).toBeCloseTo(0.5, 6);
    expect(game!.quality.matchQuality).toBeCloseTo(1, 12);
  });
});
