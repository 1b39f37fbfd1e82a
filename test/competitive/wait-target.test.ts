import { describe, expect, it } from 'vitest';
import { ArrivalDensity, DensityView, planTarget, TargetWindows, WINDOW_SHAPES } from '../../src/competitive/index.js';
import { Sampler } from '../../src/simulation/sampling.js';
import { config, matcher, pairsOf, solo } from './fixtures.js';

/** A density fed with `seconds` of Poisson arrivals of N(1500, 200) scores. */
function normalArrivals(perSecond: number, seconds: number): { density: ArrivalDensity; now: number } {
  const density = new ArrivalDensity();
  const sample = new Sampler(5);
  let now = 0;
  while (now < seconds * 1000) {
    now += sample.exponential(1000 / perSecond);
    density.record(sample.normal(1500, 200), now);
  }
  return { density, now };
}

describe('wait targets: a plan from the measured window shapes', () => {
  it('a p99 target alone takes the shape with the least gap x p99, tau to fit the p99 after one batch', () => {
    const plan = planTarget({ waitP99Ms: 10_000 }, 250, 600_000);
    const best = WINDOW_SHAPES.reduce((a, b) => (b.gap * b.p99Wait < a.gap * a.p99Wait ? b : a));
    expect(plan.shape).toBe(best);
    expect(plan.tauMs).toBeCloseTo((10_000 - 250) / best.p99Wait, 6);
    expect(plan.budgetMs).toBe(20_000);
  });

  it('a low mean as well moves to a slow-growing shape: the mean binds, not the p99', () => {
    const plan = planTarget({ waitP99Ms: 17_000, meanWaitMs: 1_400 }, 250, 600_000);
    expect(plan.shape.growth).toBeGreaterThanOrEqual(8);
    expect(plan.tauMs).toBeCloseTo((1_400 - 125) / plan.shape.meanWait, 6);
  });

  it('a target under one batch interval asks for everyone to play at the next batch', () => {
    expect(planTarget({ waitP99Ms: 100, meanWaitMs: 50 }, 250, 600_000).tauMs).toBe(1);
  });

  it('the budget never exceeds the factory bound on budgets', () => {
    expect(planTarget({ waitP99Ms: 100_000 }, 250, 60_000).budgetMs).toBe(60_000);
  });
});

describe('wait targets: windows', () => {
  const { density, now } = normalArrivals(20, 900);
  const snapshot = density.snapshot(now);
  const plan = planTarget({ waitP99Ms: 10_000 }, 250, 600_000);
  const windows = new TargetWindows(DensityView.of(snapshot), plan, undefined);
  const ticket = solo('t', 1500);

  it('are narrow where partners are many and wide where they are rare, by 1 / sqrt(density)', () => {
    const centre = windows.windowOf(ticket, 1500, 0);
    const tail = windows.windowOf(ticket, 1900, 0);
    expect(tail).toBeGreaterThan(centre);
    expect(tail / centre).toBeCloseTo(Math.sqrt(snapshot.at(1500) / snapshot.at(1900)), 6);
  });

  it('widen with waiting, and take anyone past the budget', () => {
    const early = windows.windowOf(ticket, 1500, 0);
    const later = windows.windowOf(ticket, 1500, 5_000);
    expect(later).toBeGreaterThan(early);
    expect(windows.windowOf(ticket, 1500, plan.budgetMs)).toBe(Infinity);
  });

  it('scale with the arrival rate: ten times the arrivals, about a tenth of the window', () => {
    const busy = normalArrivals(200, 300);
    const faster = new TargetWindows(DensityView.of(busy.density.snapshot(busy.now)), plan, undefined);
    const ratio = windows.windowOf(ticket, 1500, 0) / faster.windowOf(ticket, 1500, 0);
    expect(ratio).toBeGreaterThan(7);
    expect(ratio).toBeLessThan(13);
  });

  it("a ticket's own budget reshapes its windows: half the budget, twice the window and a deadline at it", () => {
    const hurried = { ...ticket, waitBudgetMs: plan.budgetMs / 2 };
    expect(windows.windowOf(hurried, 1500, 0)).toBeCloseTo(2 * windows.windowOf(ticket, 1500, 0), 9);
    expect(windows.windowOf(hurried, 1500, plan.budgetMs / 2)).toBe(Infinity);
    expect(windows.windowOf(ticket, 1500, plan.budgetMs / 2)).toBeLessThan(Infinity);
  });

  it('a mean-gap target sets tau from the live density: a tighter gap, a longer tau, narrower windows', () => {
    const gapPlan = planTarget({ meanGapSigma: 0.1 }, 250, 600_000);
    const loose = new TargetWindows(DensityView.of(snapshot), gapPlan, 0.1 * 200);
    const tight = new TargetWindows(DensityView.of(snapshot), gapPlan, 0.05 * 200);
    expect(tight.windowOf(ticket, 1500, 0)).toBeLessThan(loose.windowOf(ticket, 1500, 0));
  });
});

describe('a matcher with a wait target', () => {
  it('pairs close scores at once and lets a far one wait, then takes it past its budget', () => {
    const m = matcher(config({ target: { waitP99Ms: 2_000 }, batch: { maxTickets: 1000, intervalMs: 250 } }));
    const sample = new Sampler(11);
    // A crowd around 1500 gives the density; one ticket far out waits.
    for (let i = 0; i < 200; i++) m.add(solo(`c${i}`, sample.normal(1500, 50), { enqueuedAt: i }));
    m.add(solo('far', 2500, { enqueuedAt: 200 }));
    m.add(solo('near-far', 2000, { enqueuedAt: 200 }));
    const first = m.formGames(250).flatMap((g) => g.teams.flat());
    expect(first).not.toContain('far');
    // Past the budget (twice the p99 target) the far ticket takes anyone left.
    const later = m.formGames(4_300).flatMap((g) => g.teams.flat());
    expect(later).toContain('far');
  });

  it('a factory that has seen too few arrivals to tell a crowd from a desert pairs whoever is there', () => {
    const m = matcher(config({ target: { waitP99Ms: 10_000 }, batch: { maxTickets: 1000, intervalMs: 250 } }));
    m.add(solo('waiter', 1500, { enqueuedAt: 0 }));
    m.add(solo('challenger', 1900, { enqueuedAt: 100 }));
    expect(pairsOf(m.formGames(250))).toEqual(['challenger+waiter']);
  });

  it('refuses a ticket budget or latency ceiling outside the factory bounds, naming the field', () => {
    const m = matcher(config({ playerLimits: { waitBudgetMs: { min: 2_000, max: 60_000 }, maxLatencyMs: { min: 20, max: 500 } } }));
    expect(() => m.add({ ...solo('a', 1500), waitBudgetMs: 500 })).toThrow(/wait_budget_ms: 500 is outside this factory's bounds 2000..60000/);
    expect(() => m.add({ ...solo('b', 1500), maxLatencyMs: 900 })).toThrow(/max_latency_ms: 900 is outside/);
    expect(() => m.add({ ...solo('c', 1500), maxLatencyMs: Number.NaN })).toThrow(/max_latency_ms: must be a finite number/);
    m.add({ ...solo('d', 1500), waitBudgetMs: 5_000, maxLatencyMs: 50 });
    expect(m.size).toBe(1);
  });

  it('rejects a target config it cannot honour, naming the field', () => {
    expect(() => matcher(config({ target: {} }))).toThrow(/target: give waitP99Ms, meanWaitMs or meanGapSigma/);
    expect(() => matcher(config({ target: { waitP99Ms: 1000, meanWaitMs: 2000 } }))).toThrow(/target.meanWaitMs: must not exceed waitP99Ms/);
    expect(() =>
      matcher(config({ target: { waitP99Ms: 1000 }, expansion: [{ afterMs: 0, maxScoreGap: 100, maxLatencyMs: Infinity }] })),
    ).toThrow(/expansion\[0\].maxScoreGap: the target sets score windows/);
  });
});

describe('per-ticket limits under a hand-written expansion', () => {
  it('a ticket past its own budget takes any gap; before it, its step window holds', () => {
    const steps = [{ afterMs: 0, maxScoreGap: 50, maxLatencyMs: Infinity }];
    const m = matcher(config({ expansion: steps }));
    m.add({ ...solo('a', 1500), waitBudgetMs: 3_000 });
    m.add({ ...solo('b', 1900), waitBudgetMs: 3_000 });
    expect(m.formGames(1_000)).toHaveLength(0);
    // The budget running out is a relaxation: the next batch is due when it does.
    expect(m.nextBatchAt()).toBe(3_000);
    expect(m.formGames(3_000)).toHaveLength(1);
  });

  it('a ticket latency ceiling caps what the expansion widens to', () => {
    const steps = [
      { afterMs: 0, maxScoreGap: Infinity, maxLatencyMs: 50 },
      { afterMs: 1_000, maxScoreGap: Infinity, maxLatencyMs: 500 },
    ];
    const m = matcher(config({ expansion: steps, regions: ['eu', 'us'] }));
    m.add({ ...solo('a', 1500, { latency: { eu: 150, us: 90 } }), maxLatencyMs: 100 });
    m.add(solo('b', 1500, { latency: { eu: 20, us: 300 } }));
    // Before 1 s nobody may play over 50 ms. At 2 s the expansion allows 500 ms: eu would be the
    // best region (worst latency 150 against 300), but a's own ceiling of 100 ms rules it out.
    expect(m.formGames(500)).toHaveLength(0);
    const [game] = m.formGames(2_000);
    expect(game!.region).toBe('us');
  });
});
