/**
 * How fast a server may start games: the rate it advertises (Battle.net talk, "Queueing and
 * Distribution", 2nd attempt: servers control "how many games they can afford and the rate they
 * can afford", because starting games is spiky load while running them is smooth).
 *
 * A token bucket of `startsPerSecond` with a burst of max(1, ⌊rate⌋) — one second's worth —
 * written as the Generic Cell Rate Algorithm: the whole bucket is one number, the theoretical
 * arrival time, so "when is the next token" is exact (`readyAt`) rather than a fraction of a
 * token recomputed from floating point. That exact time is what the ledger keys its waiting
 * servers by. A rate of 0 means unlimited.
 */
export class StartRateBucket {
  /** Milliseconds one start costs; 0 when unlimited. */
  private readonly intervalMs: number;
  /** How far ahead of `now` the arrival time may run: the burst minus one start. */
  private readonly toleranceMs: number;
  private theoreticalArrival: number;

  constructor(
    readonly startsPerSecond: number,
    now: number,
  ) {
    if (!(startsPerSecond >= 0) || !Number.isFinite(startsPerSecond)) {
      throw new RangeError(`maxStartsPerSecond must be a finite number >= 0, got ${startsPerSecond}`);
    }
    this.intervalMs = startsPerSecond === 0 ? 0 : 1000 / startsPerSecond;
    this.toleranceMs = (this.burst - 1) * this.intervalMs;
    this.theoreticalArrival = now;
  }

  get unlimited(): boolean {
    return this.intervalMs === 0;
  }

  /** Starts allowed at once after a quiet second. */
  get burst(): number {
    return Math.max(1, Math.floor(this.startsPerSecond));
  }

  /** Earliest time a start is allowed; -Infinity when unlimited. */
  get readyAt(): number {
    return this.unlimited ? -Infinity : this.theoreticalArrival - this.toleranceMs;
  }

  allows(now: number): boolean {
    return now >= this.readyAt;
  }

  /** Spends one start. The caller checked `allows(now)`; spending without a token only delays later ones. */
  take(now: number): void {
    if (this.unlimited) return;
    this.theoreticalArrival = Math.max(this.theoreticalArrival, now) + this.intervalMs;
  }

  /**
   * The bucket for a newly advertised rate. Starts already spent carry over (converted to the
   * new rate), so re-advertising does not refill the burst.
   */
  withRate(startsPerSecond: number, now: number): StartRateBucket {
    const next = new StartRateBucket(startsPerSecond, now);
    if (!this.unlimited && !next.unlimited) {
      const spent = Math.max(0, this.theoreticalArrival - now) / this.intervalMs;
      next.theoreticalArrival = now + Math.min(spent, next.burst) * next.intervalMs;
    }
    return next;
  }
}
