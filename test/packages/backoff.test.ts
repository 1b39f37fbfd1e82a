import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff } from '@gamefactory/protocol';

describe('Backoff', () => {
  it('grows by the multiplier up to the cap, then starts over after a reset', () => {
    const backoff = new Backoff({ initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map(() => backoff.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoff.failures).toBe(6);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  it('jitter only ever shortens a delay, by at most its share', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 0.99, noNaN: true }), fc.integer({ min: 0, max: 12 }), (jitter, draw, attempts) => {
        const exact = new Backoff({ initialDelayMs: 50, maxDelayMs: 30_000, jitter: 0 });
        const jittered = new Backoff({ initialDelayMs: 50, maxDelayMs: 30_000, jitter }, () => draw);
        for (let i = 0; i < attempts; i++) {
          exact.next();
          jittered.next();
        }
        const full = exact.next();
        const delay = jittered.next();
        expect(delay).toBeLessThanOrEqual(full);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(full * (1 - jitter)) - 1);
      }),
    );
  });
});
