/** Summaries the report uses; quantiles by nearest rank, on a sorted copy. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export interface Summary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export function summarize(xs: readonly number[]): Summary {
  return { count: xs.length, mean: mean(xs), p50: quantile(xs, 0.5), p90: quantile(xs, 0.9), p99: quantile(xs, 0.99) };
}

/** Counts per bin of `width` from 0; the last bin holds everything beyond. */
export function histogram(xs: readonly number[], width: number, bins: number): { from: number; count: number }[] {
  const counts = new Array<number>(bins).fill(0);
  for (const x of xs) counts[Math.min(bins - 1, Math.max(0, Math.floor(x / width)))]! += 1;
  return counts.map((count, i) => ({ from: i * width, count }));
}

/** Rounds for the JSON report: stable across platforms' last-bit differences is not promised, readability is. */
export function round(x: number, digits = 4): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
