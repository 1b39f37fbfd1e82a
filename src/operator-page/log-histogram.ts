import { RollingWindow } from './rolling-window.js';

/** Buckets per doubling: a reported quantile is the bucket's upper bound, at most 19% high. */
const PER_DOUBLING = 4;
const BUCKETS = 40 * PER_DOUBLING; // up to 2^40 ms: more than any wait

export function bucketOf(value: number): number {
  if (!(value > 1)) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log2(value) * PER_DOUBLING));
}

export function upperBound(bucket: number): number {
  return 2 ** (bucket / PER_DOUBLING);
}

/** The `q` quantile (0..1) of the values counted in `counts` (summed bucket-wise), or null if none. */
export function quantile(counts: readonly Float64Array[], q: number): number | null {
  let total = 0;
  for (const c of counts) for (let i = 0; i < BUCKETS; i++) total += c[i]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < BUCKETS; i++) {
    for (const c of counts) seen += c[i]!;
    if (seen >= rank) return upperBound(i);
  }
  return upperBound(BUCKETS - 1);
}

/** A log-bucket histogram over a rolling window: quantiles of recent values in fixed memory. */
export class RollingHistogram {
  private readonly window: RollingWindow<Float64Array>;

  constructor(slots: number, slotMs: number) {
    this.window = new RollingWindow<Float64Array>(slots, slotMs, () => new Float64Array(BUCKETS), (v) => v.fill(0));
  }

  add(now: number, value: number): void {
    this.window.at(now)[bucketOf(value)]! += 1;
  }

  live(now: number): Float64Array[] {
    return [...this.window.live(now)];
  }

  quantile(now: number, q: number): number | null {
    return quantile(this.live(now), q);
  }
}
