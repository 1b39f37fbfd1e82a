import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRUESKILL, trueskillRate } from '../../src/ratings/index.js';
import { rateOneOnOne } from '../../src/simulation/paper/one-on-one-trueskill.js';
import { runPaperExperiment } from '../../src/simulation/paper/paper-experiment.js';
import { paperScenarioSchema } from '../../src/simulation/paper/paper-scenario.js';

const SMALL = paperScenarioSchema.parse({
  experiment: 'parallel-matchmaking',
  seed: 4,
  players: 600,
  trueMmr: { mean: 1500, sd: 400 },
  latencyMs: { mean: 50, sd: 15 },
  ticks: 1500,
  gameTicks: 10,
  lenience: { perScore: { elo: 0.02, trueskill: 0.01 }, perMs: 0.005, growthPerTick: 0.05 },
  gamefactory: { waitP99Ticks: 4 },
  trueskill: { sigma: 400, beta: 196, tau: 4 },
  elo: { kFactor: 32, scale: 400 },
  groups: [1200, 1500, 1800],
  sampleEvery: 100,
});

describe("the parallel-matchmaking paper's experiment", () => {
  it("TrueSkill's closed-form 1v1 update is the factor graph's, to 1e-9", () => {
    const skill = fc.record({ mu: fc.double({ min: 0, max: 50, noNaN: true }), sigma: fc.double({ min: 0.5, max: 10, noNaN: true }) });
    fc.assert(
      fc.property(skill, skill, (w, l) => {
        const [[theirsW], [theirsL]] = trueskillRate([[w], [l]], [0, 1], DEFAULT_TRUESKILL) as [[{ mu: number; sigma: number }], [{ mu: number; sigma: number }]];
        const mu = Float64Array.of(w.mu, l.mu);
        const sigma = Float64Array.of(w.sigma, l.sigma);
        rateOneOnOne(mu, sigma, 0, 1, DEFAULT_TRUESKILL);
        expect(Math.abs(mu[0]! - theirsW.mu)).toBeLessThan(1e-9);
        expect(Math.abs(mu[1]! - theirsL.mu)).toBeLessThan(1e-9);
        expect(Math.abs(sigma[0]! - theirsW.sigma)).toBeLessThan(1e-9);
        expect(Math.abs(sigma[1]! - theirsL.sigma)).toBeLessThan(1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it("converges as the paper's figures do: groups sort by true MMR, win rates near 50%; same seed, same report", () => {
    const report = runPaperExperiment(SMALL);
    expect(JSON.stringify(runPaperExperiment(SMALL))).toBe(JSON.stringify(report));
    expect(report.runs.map((r) => `${r.system} ${r.matcher}`)).toEqual(['elo lenience rule', 'elo gamefactory', 'trueskill lenience rule', 'trueskill gamefactory']);
    for (const run of report.runs) {
      const first = run.samples[0]!;
      const last = run.samples[run.samples.length - 1]!;
      // Everyone starts at the mean: after 100 ticks the middle groups still hold almost everyone.
      expect(first.groups[1]!.players + first.groups[2]!.players).toBeGreaterThan(0.5 * SMALL.players);
      // At the end a higher rating group has a higher mean true MMR, group by group.
      const truths = last.groups.filter((g) => g.players >= 20).map((g) => g.meanTrueMmr);
      for (let k = 1; k < truths.length; k++) expect(truths[k]!).toBeGreaterThan(truths[k - 1]!);
      // Each group wins about half its games once players meet their own level.
      for (const g of last.groups.filter((x) => x.players >= 50)) expect(Math.abs(g.winRate - 0.5)).toBeLessThan(0.1);
      expect(run.games).toBeGreaterThan(0);
    }
  }, 120_000);
});
