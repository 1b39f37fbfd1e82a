import { describe, expect, it } from 'vitest';
import { ArrivalDensity, RegionalDensity } from '../../src/competitive/index.js';
import { Sampler } from '../../src/simulation/sampling.js';

const normalPdf = (z: number) => Math.exp(-(z * z) / 2) / Math.sqrt(2 * Math.PI);

/** Poisson arrivals at `perSecond` of scores ~ N(1500, 200), for `seconds`. */
function arrivals(density: ArrivalDensity, perSecond: number, seconds: number, seed = 3, mean = 1500): number {
  const sample = new Sampler(seed);
  let t = 0;
  while (t < seconds * 1000) {
    t += sample.exponential(1000 / perSecond);
    density.record(sample.normal(mean, 200), t);
  }
  return t;
}

describe('ArrivalDensity: live arrivals per ms per score unit', () => {
  it('reads the rate and a normal density within 10% at the centre, 25% two sigmas out', () => {
    const density = new ArrivalDensity();
    const now = arrivals(density, 20, 1200);
    const snapshot = density.snapshot(now);
    expect(snapshot.ratePerMs * 1000).toBeGreaterThan(20 * 0.9);
    expect(snapshot.ratePerMs * 1000).toBeLessThan(20 * 1.1);
    // Two sigmas out a bin holds ~40 arrivals of the horizon: Poisson noise alone is ~16%.
    for (const [z, tolerance] of [[0, 0.1], [2, 0.25], [-2, 0.25]] as const) {
      const truth = (20 / 1000) * (normalPdf(z) / 200);
      expect(Math.abs(snapshot.at(1500 + z * 200) / truth - 1)).toBeLessThan(tolerance);
    }
    // The density the average arrival sees: rate x integral of pdf^2 = rate / (2 sqrt(pi) sigma).
    const typical = 20 / 1000 / (2 * Math.sqrt(Math.PI) * 200);
    expect(Math.abs(snapshot.typical / typical - 1)).toBeLessThan(0.1);
  });

  it('scores far out in a tail are not read as empty: the estimate widens until it holds arrivals', () => {
    const density = new ArrivalDensity();
    const now = arrivals(density, 2, 600);
    const far = density.snapshot(now).at(1500 + 6 * 200);
    expect(far).toBeGreaterThan(0);
    expect(Number.isFinite(far)).toBe(true);
  });

  it('forgets: after the population moves, the density follows it', () => {
    const density = new ArrivalDensity(60_000);
    const then = arrivals(density, 20, 600, 3, 1500);
    const sample = new Sampler(9);
    let t = then;
    while (t < then + 600_000) {
      t += sample.exponential(50);
      density.record(sample.normal(1900, 200), t);
    }
    // Two sigmas below the new centre, a normal density is 7.4 times thinner.
    const snapshot = density.snapshot(t);
    expect(snapshot.at(1900)).toBeGreaterThan(4 * snapshot.at(1500));
  });

  it('before enough arrivals, one uniform density over the spread seen', () => {
    const density = new ArrivalDensity();
    density.record(1400, 0);
    density.record(1600, 1000);
    const snapshot = density.snapshot(1000);
    expect(snapshot.at(1400)).toBe(snapshot.at(5000));
    expect(snapshot.at(1400)).toBeGreaterThan(0);
    expect(snapshot.warm).toBe(false);
    for (let i = 0; i < 30; i++) density.record(1500 + i, 2000 + i);
    expect(density.snapshot(3000).warm).toBe(true);
  });

  it('with regions, a ticket reads the density of its own nearest region: a region of a tenth of the arrivals is ten times thinner', () => {
    const regional = new RegionalDensity(['eu', 'ap']);
    const sample = new Sampler(6);
    const ticket = (latency: Record<string, number>) => ({
      ticketId: 't',
      players: [{ playerId: 'p', score: 0 }],
      enqueuedAt: 0,
      latencyMs: new Map(Object.entries(latency)),
      preferredMaps: [],
      vetoedMaps: [],
    });
    const eu = ticket({ eu: 20, ap: 250 });
    const ap = ticket({ eu: 250, ap: 30 });
    let t = 0;
    while (t < 600_000) {
      t += sample.exponential(50);
      regional.record(sample.uniform() < 0.9 ? eu : ap, sample.normal(1500, 200), t);
    }
    const view = regional.snapshot(t);
    const ratio = view.forTicket(eu).at(1500) / view.forTicket(ap).at(1500);
    expect(ratio).toBeGreaterThan(6);
    expect(ratio).toBeLessThan(14);
    // Without latencies a ticket counts the whole factory's arrivals.
    expect(view.forTicket(ticket({}))).toBe(view.whole);
  });

  it('averages the values recorded near a score (recent waits for a wait estimate)', () => {
    const waits = new ArrivalDensity(120_000);
    const sample = new Sampler(8);
    let t = 0;
    // Waits grow away from the centre: 1 s there, 5 s two sigmas out.
    for (let i = 0; i < 4000; i++) {
      t += 50;
      const score = sample.normal(1500, 200);
      waits.record(score, t, 1000 + 1000 * Math.abs(score - 1500) / 100);
    }
    expect(waits.meanNear(1500)).toBeGreaterThan(900);
    expect(waits.meanNear(1500)).toBeLessThan(1600);
    expect(waits.meanNear(1900)!).toBeGreaterThan(3 * waits.meanNear(1500)!);
    expect(new ArrivalDensity().meanNear(1500)).toBeUndefined();
  });
});
