/**
 * An exponentially decayed count of events: recent events weigh most, old ones fade with a
 * half-life. One number and a timestamp per series, O(1) per update, no window to store — used
 * for factory popularity (recent requests) and for recent game starts behind wait estimates.
 */
export class DecayingRate {
  private value = 0;
  private at = -Infinity;

  constructor(readonly halfLifeMs: number) {
    if (!(halfLifeMs > 0)) throw new RangeError(`halfLifeMs must be > 0, got ${halfLifeMs}`);
  }

  record(now: number, count = 1): void {
    this.decayTo(now);
    this.value += count;
  }

  /** Events counted so far, each weighted 2^(−age / half-life). */
  count(now: number): number {
    this.decayTo(now);
    return this.value;
  }

  /** Events per second: at a steady rate r the decayed count settles at r × half-life / ln 2. */
  perSecond(now: number): number {
    return (this.count(now) * Math.LN2 * 1000) / this.halfLifeMs;
  }

  private decayTo(now: number): void {
    if (now > this.at) {
      if (this.value !== 0) this.value *= Math.pow(2, -(now - this.at) / this.halfLifeMs);
      this.at = now;
    }
  }
}
