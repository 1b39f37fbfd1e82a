import type { ComplexityCase } from './case.js';
import { findCollector } from './gc.js';

/** How the runner measures one case; every field has a default in `defaultMeasureOptions`. */
export interface MeasureOptions {
  readonly minLog2: number;
  readonly maxLog2: number;
  /** Fixed W; when absent, W is chosen per size so one sample lasts `targetSampleMs`. */
  readonly callsPerSample?: number;
  /** Long enough to beat timer resolution and scheduler jitter on a shared machine. */
  readonly targetSampleMs: number;
  /** Samples per size; the median is kept. */
  readonly samples: number;
}

export const defaultMeasureOptions: MeasureOptions = {
  minLog2: 8,
  maxLog2: 16,
  targetSampleMs: 3,
  samples: 7,
};

export interface SizeMeasurement {
  readonly n: number;
  /** The W used at this size. */
  readonly callsPerSample: number;
  /** Median over samples of the time per call. */
  readonly nsPerCall: number;
  /** Per-call time of every sample, in the order taken. */
  readonly samplesNsPerCall: readonly number[];
}

export interface CaseMeasurement {
  readonly name: string;
  readonly sizes: readonly SizeMeasurement[];
  readonly elapsedMs: number;
}

/** Results escape here so the optimiser can't drop calls whose value is unused. */
let blackhole: unknown;
export function lastResult(): unknown {
  return blackhole;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface SizeUnderTest<State> {
  readonly n: number;
  readonly state: State;
  /** The next `i` passed to run; it keeps counting across samples, as the contract promises. */
  nextCall: number;
  callsPerSample: number;
  readonly samples: number[];
}

type CallLoop = (run: (state: unknown, i: number) => unknown, state: unknown, firstCall: number, calls: number) => unknown;

/**
 * A timing loop compiled afresh for each case, so its call site sees one `run` function only
 * and V8 optimises every case alike, whatever ran before it in the process.
 */
function compileCallLoop(): CallLoop {
  return new Function(
    'run',
    'state',
    'firstCall',
    'calls',
    'let result; for (let k = 0; k < calls; k++) result = run(state, firstCall + k); return result;',
  ) as CallLoop;
}

function timeCalls<State>(loop: CallLoop, c: ComplexityCase<State>, size: SizeUnderTest<State>, calls: number): number {
  const start = process.hrtime.bigint();
  const result = loop(c.run as (state: unknown, i: number) => unknown, size.state, size.nextCall, calls);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  size.nextCall += calls;
  blackhole = result;
  return elapsedNs;
}

/**
 * Warms the size up (JIT, caches) and picks W: double the calls until a batch lasts the target,
 * then time one more batch compiled and scale W to the target from it.
 */
function calibrate<State>(loop: CallLoop, c: ComplexityCase<State>, size: SizeUnderTest<State>, options: MeasureOptions): void {
  const targetNs = options.targetSampleMs * 1e6;
  if (options.callsPerSample !== undefined) {
    timeCalls(loop, c, size, options.callsPerSample);
    size.callsPerSample = options.callsPerSample;
    return;
  }
  let calls = 1;
  while (timeCalls(loop, c, size, calls) < targetNs && calls < 1 << 30) calls *= 2;
  const settledNs = Math.max(timeCalls(loop, c, size, calls), 1);
  size.callsPerSample = Math.max(1, Math.ceil((calls * targetNs) / settledNs));
}

/**
 * The talk's procedure ("call tests W times and time the result, vary N from 2^a to 2^b"),
 * hardened for a noisy shared machine: all sizes are built first and sampled in interleaved
 * rounds, so a burst of load from a neighbour lands on every size rather than on one, and the
 * median of each size's samples is kept.
 */
export function measureCase<State>(c: ComplexityCase<State>, overrides: Partial<MeasureOptions> = {}): CaseMeasurement {
  const options: MeasureOptions = {
    ...defaultMeasureOptions,
    ...(c.minLog2 === undefined ? {} : { minLog2: c.minLog2 }),
    ...(c.maxLog2 === undefined ? {} : { maxLog2: c.maxLog2 }),
    ...(c.callsPerSample === undefined ? {} : { callsPerSample: c.callsPerSample }),
    ...overrides,
  };
  if (options.maxLog2 <= options.minLog2) throw new Error(`${c.name}: maxLog2 must exceed minLog2`);
  const collect = findCollector();
  const loop = compileCallLoop();
  const startedAt = performance.now();

  const sizes: SizeUnderTest<State>[] = [];
  for (let log2 = options.minLog2; log2 <= options.maxLog2; log2++) {
    const n = 2 ** log2;
    sizes.push({ n, state: c.setup(n), nextCall: 0, callsPerSample: 1, samples: [] });
  }
  for (const size of sizes) calibrate(loop, c, size, options);

  for (let round = 0; round < options.samples; round++) {
    collect();
    // Rotate the starting size so no size always follows the collection or a particular neighbour.
    for (let k = 0; k < sizes.length; k++) {
      const size = sizes[(round + k) % sizes.length]!;
      size.samples.push(timeCalls(loop, c, size, size.callsPerSample) / size.callsPerSample);
    }
  }
  collect();

  return {
    name: c.name,
    sizes: sizes.map((s) => ({
      n: s.n,
      callsPerSample: s.callsPerSample,
      nsPerCall: median(s.samples),
      samplesNsPerCall: s.samples,
    })),
    elapsedMs: performance.now() - startedAt,
  };
}
