export interface BackoffOptions {
  /** First delay after a failure (default 100 ms). */
  readonly initialDelayMs?: number;
  /** Longest delay between two attempts (default 5000 ms). */
  readonly maxDelayMs?: number;
  /** Growth per failed attempt (default 2). */
  readonly multiplier?: number;
  /**
   * Share of each delay drawn at random (default 0.2): clients cut off by the same node failure
   * spread their retries instead of arriving at the survivor in one wave.
   */
  readonly jitter?: number;
}

/** Exponential backoff with jitter for reconnects and resumes; `reset` after a success. */
export class Backoff {
  private attempt = 0;
  private readonly initial: number;
  private readonly max: number;
  private readonly multiplier: number;
  private readonly jitter: number;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initial = options.initialDelayMs ?? 100;
    this.max = options.maxDelayMs ?? 5000;
    this.multiplier = options.multiplier ?? 2;
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? 0.2));
  }

  /** The delay before the next attempt, growing with each call until `reset`. */
  next(): number {
    const base = Math.min(this.max, this.initial * this.multiplier ** this.attempt);
    this.attempt++;
    return Math.round(base * (1 - this.jitter + this.jitter * this.random()));
  }

  /** Attempts since the last success. */
  get failures(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}
