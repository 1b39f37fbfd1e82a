/** One memory sample of the soak. */
export interface MemorySample {
  /** Minutes since the soak started. */
  readonly minute: number;
  readonly rssMb: number;
  readonly heapMb: number;
}

/** Least-squares slope of `value` over `minute`, in units per minute; 0 with fewer than two points. Pure. */
export function slopePerMinute(points: readonly { minute: number; value: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.minute, 0) / n;
  const my = points.reduce((s, p) => s + p.value, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.minute - mx) * (p.value - my);
    den += (p.minute - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** RSS and heap slopes after warm-up (the first `warmupMinutes` are left out): flat is < 1 MB/min. */
export function memorySlopes(samples: readonly MemorySample[], warmupMinutes: number) {
  const after = samples.filter((s) => s.minute >= warmupMinutes);
  return {
    rssMbPerMin: slopePerMinute(after.map((s) => ({ minute: s.minute, value: s.rssMb }))),
    heapMbPerMin: slopePerMinute(after.map((s) => ({ minute: s.minute, value: s.heapMb }))),
  };
}
