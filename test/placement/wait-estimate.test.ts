import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecayingRate, estimateWaitMs } from '../../src/placement/index.js';
import { MAX_WAIT_ESTIMATE_MS } from '../../src/placement/wait-estimate.js';

describe('the wait estimate told to a queued client', () => {
  it('is an estimate of at most a day, or none: never past what the wire carries', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.double({ min: Number.MIN_VALUE, max: 1e9, noNaN: true }), (position, rate) => {
        const ms = estimateWaitMs(position, rate);
        if (ms !== undefined) {
          expect(Number.isInteger(ms)).toBe(true);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(MAX_WAIT_ESTIMATE_MS);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('says none, not months, long after the last start (the rate decays but never reaches zero)', () => {
    // Seen with games that never end: 2,000 starts, then 12 tickets waiting for a slot; 281 s on,
    // the estimate was 2.4e10 ms, past uint32, and the update ended its stream with INTERNAL.
    const starts = new DecayingRate(10_000);
    starts.record(0, 2_000);
    expect(estimateWaitMs(12, starts.perSecond(1_000))).toBeGreaterThan(0);
    expect(estimateWaitMs(12, starts.perSecond(281_000))).toBeUndefined();
    expect(estimateWaitMs(12, 0)).toBeUndefined();
  });
});
