/**
 * A benchmark suite: one file `perf/bench/<name>.bench.ts` default-exports one BenchSuite.
 * `npm run bench` runs every suite and writes JSON, a Markdown table and SVG charts.
 * Report ratios measured in one run (ours vs a baseline or peer), never absolute timings alone:
 * this machine is shared and noisy.
 */
export interface BenchRow {
  /** Which comparison this row belongs to, e.g. "cooperative find (matches/s)". */
  readonly group: string;
  /** Who was measured: "gamefactory", "linear scan", "colyseus", "grpc unary echo"... */
  readonly subject: string;
  /** Problem size, when the group varies it (charted on a log axis). */
  readonly n?: number;
  readonly metric: string; // "ops/s", "p99 ms", "mean gap"...
  readonly value: number;
  /** True when higher is better (throughput), false for latencies and gaps. */
  readonly higherIsBetter: boolean;
}

export interface BenchOptions {
  /** A short run for smoke tests: small sizes, few iterations. */
  readonly quick: boolean;
}

export interface BenchSuite {
  readonly name: string;
  run(options: BenchOptions): Promise<BenchRow[]>;
}
