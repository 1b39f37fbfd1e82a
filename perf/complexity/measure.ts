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
  /**
   * 'main' (default): the lesser of process CPU time and wall time per sample. Each overstates the
   * main thread's own time in one way: wall time counts time descheduled while neighbours hold both
   * cores, process CPU time counts V8's parallel GC helper threads. The lesser is the tightest bound
   * on the main thread's work without a per-thread clock (Node 20 has none).
   * 'cpu' is process.cpuUsage() alone, 'wall' is process.hrtime alone.
   */
  readonly clock: 'main' | 'cpu' | 'wall';
  /** Collections between rounds stop once one takes longer than this (large heaps). */
  readonly collectionBudgetMs: number;
  /**
   * Calibrating and sampling a case past this fails it: a case whose cost grows with the calls
   * made (each V8 Map move of the same key, say) picks ever larger W and ran 15-20 minutes, where
   * a case takes seconds; the suite must fail, not hang the run.
   */
  readonly maxCaseMs: number;
}

export const defaultMeasureOptions: MeasureOptions = {
  minLog2: 8,
  maxLog2: 16,
  targetSampleMs: 3,
  samples: 9,
  clock: 'main',
  collectionBudgetMs: 25,
  maxCaseMs: 60_000,
};

export interface SizeMeasurement {
  readonly n: number;
  /** The W used at this size. */
  readonly callsPerSample: number;
  /** Median over samples of the time per call, on the chosen clock. */
  readonly nsPerCall: number;
  /** Median over samples of the wall-clock time per call, for comparison. */
  readonly wallNsPerCall: number;
  /** Per-call time of every sample on the chosen clock, in the order taken. */
  readonly samplesNsPerCall: readonly number[];
}

export interface CaseMeasurement {
  readonly name: string;
  readonly clock: MeasureOptions['clock'];
  readonly sizes: readonly SizeMeasurement[];
  readonly elapsedMs: number;
  /** Where the time went, to tell a slow setup from slow collections or slow samples. */
  readonly phasesMs: { readonly setup: number; readonly calibrate: number; readonly sample: number; readonly collect: number };
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
  readonly wallSamples: number[];
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

interface Timing {
  readonly ns: number;
  readonly wallNs: number;
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

function timeCalls<State>(loop: CallLoop, c: ComplexityCase<State>, size: SizeUnderTest<State>, calls: number, clock: MeasureOptions['clock']): Timing {
  const cpuStart = cpuMicros();
  const wallStart = process.hrtime.bigint();
  const result = loop(c.run as (state: unknown, i: number) => unknown, size.state, size.nextCall, calls);
  const wallNs = Number(process.hrtime.bigint() - wallStart);
  const cpuNs = (cpuMicros() - cpuStart) * 1000;
  size.nextCall += calls;
  blackhole = result;
  return { ns: clock === 'cpu' ? cpuNs : clock === 'wall' ? wallNs : Math.min(cpuNs, wallNs), wallNs };
}

/**
 * Warms the size up (JIT, caches) and picks W: double the calls until a batch lasts the target,
 * then scale W to the target from the fastest of three more batches, so one collection landing in
 * a batch doesn't shrink W.
 */
function calibrate<State>(loop: CallLoop, c: ComplexityCase<State>, size: SizeUnderTest<State>, options: MeasureOptions, inTime: () => void): void {
  const targetNs = options.targetSampleMs * 1e6;
  const time = (calls: number): number => {
    inTime();
    return timeCalls(loop, c, size, calls, options.clock).ns;
  };
  if (options.callsPerSample !== undefined) {
    time(options.callsPerSample);
    size.callsPerSample = options.callsPerSample;
    return;
  }
  let calls = 1;
  while (time(calls) < targetNs && calls < 1 << 30) calls *= 2;
  const settledNs = Math.max(Math.min(time(calls), time(calls), time(calls)), 1);
  size.callsPerSample = Math.max(1, Math.ceil((calls * targetNs) / settledNs));
}

/**
 * The talk's procedure ("call tests W times and time the result, vary N from 2^a to 2^b"),
 * hardened for a noisy shared machine: all sizes are built first and sampled in interleaved
 * rounds, so a burst of load from a neighbour, or the heap's collection cost, lands on every size
 * rather than on one, and the median of each size's samples is kept.
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
  const startedAt = performance.now();
  const phasesMs = { setup: 0, calibrate: 0, sample: 0, collect: 0 };
  const timed = <T>(phase: keyof typeof phasesMs, work: () => T): T => {
    const start = performance.now();
    try {
      return work();
    } finally {
      phasesMs[phase] += performance.now() - start;
    }
  };
  const collectGarbage = findCollector();
  // A full collection of a large heap can cost a second; past the budget, medians do the job alone.
  let collectBetweenRounds = true;
  const collect = (): void => {
    const ms = timed('collect', () => {
      const start = performance.now();
      collectGarbage();
      return performance.now() - start;
    });
    if (ms > options.collectionBudgetMs) collectBetweenRounds = false;
  };
  const loop = compileCallLoop();
  const inTime = (): void => {
    const ms = performance.now() - startedAt;
    if (ms > options.maxCaseMs) {
      throw new Error(`${c.name}: still measuring after ${Math.round(ms / 1000)} s (limit ${options.maxCaseMs / 1000} s): its cost grows with the calls made, which no budget allows`);
    }
  };

  const sizes: SizeUnderTest<State>[] = [];
  for (let log2 = options.minLog2; log2 <= options.maxLog2; log2++) {
    const n = 2 ** log2;
    const state = timed('setup', () => c.setup(n));
    sizes.push({ n, state, nextCall: 0, callsPerSample: 1, samples: [], wallSamples: [] });
  }
  collect();
  timed('calibrate', () => {
    for (const size of sizes) calibrate(loop, c, size, options, inTime);
  });

  for (let round = 0; round < options.samples; round++) {
    inTime();
    if (collectBetweenRounds) collect();
    timed('sample', () => {
      // Rotate the starting size so no size always follows the collection or a particular neighbour.
      for (let k = 0; k < sizes.length; k++) {
        const size = sizes[(round + k) % sizes.length]!;
        const timing = timeCalls(loop, c, size, size.callsPerSample, options.clock);
        size.samples.push(timing.ns / size.callsPerSample);
        size.wallSamples.push(timing.wallNs / size.callsPerSample);
      }
    });
  }

  return {
    name: c.name,
    clock: options.clock,
    sizes: sizes.map((s) => ({
      n: s.n,
      callsPerSample: s.callsPerSample,
      nsPerCall: median(s.samples),
      wallNsPerCall: median(s.wallSamples),
      samplesNsPerCall: s.samples,
    })),
    elapsedMs: performance.now() - startedAt,
    phasesMs,
  };
}
