import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineDepartures, QUEUED_UPDATE_MIN_INTERVAL_MS, worthTelling } from '../../src/placement/index.js';
import { MAX_WAIT_ESTIMATE_MS } from '../../src/placement/wait-estimate.js';
import { runSlotQueue, type WaitSample } from '../../src/simulation/slot-queue-run.js';

/** Share of looks whose estimate is within a factor `k` of the wait that followed. */
function withinFactor(samples: readonly WaitSample[], k: number): number {
  const known = samples.filter((s) => s.estimateMs !== undefined && s.remainingMs > 0);
  return known.filter((s) => s.estimateMs! <= k * s.remainingMs && s.estimateMs! >= s.remainingMs / k).length / known.length;
}

describe('the wait estimate told to a queued client', () => {
  it('is an estimate of at most an hour, or unknown: never past what the wire carries', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(10_000_000), { maxLength: 50 }), fc.nat(10_000_000), fc.nat(20_000_000), (departures, position, later) => {
        const line = new LineDepartures();
        const sorted = [...departures].sort((a, b) => a - b);
        for (const t of sorted) line.departed(t);
        const ms = line.estimateMs(position, (sorted.at(-1) ?? 0) + later);
        if (ms !== undefined) {
          expect(Number.isInteger(ms)).toBe(true);
          expect(ms).toBeGreaterThan(0);
          expect(ms).toBeLessThanOrEqual(MAX_WAIT_ESTIMATE_MS);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('unknown until the line has moved twice, and once its last moves are past the window', () => {
    const line = new LineDepartures();
    expect(line.estimateMs(1, 0)).toBeUndefined();
    line.departed(0);
    expect(line.estimateMs(1, 1000)).toBeUndefined();
    line.departed(60_000);
    expect(line.estimateMs(1, 61_000)).toBe(30_500);
    expect(line.estimateMs(1, 1_000_000)).toBeUndefined();
  });

  it('grows no faster than the clock while nothing leaves the line: a line that moves once a minute tells its head about a minute', () => {
    // One slot, games of about a minute: before, position 1 was told 15,776 ms and, a minute
    // later, 863,466 ms (a rate decaying with a 10 s half-life), then served at ~65 s.
    const line = new LineDepartures();
    for (let t = 0; t <= 600_000; t += 60_000) line.departed(t);
    const told = [0, 15_000, 30_000, 45_000, 59_000].map((wait) => line.estimateMs(1, 600_000 + wait)!);
    for (const ms of told) expect(ms).toBeGreaterThan(30_000);
    for (const ms of told) expect(ms).toBeLessThan(120_000);
    expect(told.at(-1)! / told[0]!).toBeLessThan(1.2);
  });

  it('against the measured waits of a simulated line (real slots, games ending, FIFO): most looks within a factor 2, nearly all within 4', () => {
    for (const scenario of [
      { seed: 1, slots: 1, perSecond: 1 / 50, gameSeconds: 60, gameSpread: 0.1, hours: 6 },
      { seed: 2, slots: 20, perSecond: 0.36, gameSeconds: 60, gameSpread: 0.5, hours: 2 },
      { seed: 3, slots: 200, perSecond: 3.5, gameSeconds: 60, gameSpread: 0.3, hours: 1 },
    ]) {
      const run = runSlotQueue(scenario);
      expect(run.waited).toBeGreaterThan(50);
      const known = run.samples.filter((s) => s.estimateMs !== undefined);
      expect(known.length / run.samples.length).toBeGreaterThan(0.9);
      expect(withinFactor(run.samples, 2)).toBeGreaterThan(0.7);
      expect(withinFactor(run.samples, 4)).toBeGreaterThan(0.9);
    }
  });
});

describe('which changes a queued ticket hears', () => {
  const told = { position: 40, estimatedWaitMs: 60_000, at: 0 };
  it('the first one always; then at most once every few seconds', () => {
    expect(worthTelling(undefined, 40, 60_000, 0)).toBe(true);
    expect(worthTelling(told, 1, 1000, QUEUED_UPDATE_MIN_INTERVAL_MS - 1)).toBe(false);
    expect(worthTelling(told, 1, 1000, QUEUED_UPDATE_MIN_INTERVAL_MS)).toBe(true);
  });
  it('only meaningful changes: a tenth of the position, a fifth of the estimate, or unknown/known', () => {
    const later = QUEUED_UPDATE_MIN_INTERVAL_MS;
    expect(worthTelling(told, 37, 60_000, later)).toBe(false);
    expect(worthTelling(told, 36, 60_000, later)).toBe(true);
    expect(worthTelling(told, 40, 70_000, later)).toBe(false);
    expect(worthTelling(told, 40, 48_000, later)).toBe(true);
    expect(worthTelling(told, 40, undefined, later)).toBe(true);
    expect(worthTelling({ position: 2, estimatedWaitMs: 5000, at: 0 }, 1, 5000, later)).toBe(true);
  });
  it('a simulated line of waiting tickets hears a small share of the looks', () => {
    const run = runSlotQueue({ seed: 2, slots: 20, perSecond: 0.36, gameSeconds: 60, gameSpread: 0.5, hours: 2 });
    expect(run.updatesSent / run.looks).toBeLessThan(0.2);
  });
});
