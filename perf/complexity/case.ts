/**
 * A hot path's declared complexity budget, checked by the complexity suite
 * (Battle.net talk, "Unit testing for performance": call each operation W times at sizes
 * 2^a..2^b, divide to get the order of growth, fail on a hidden O(n)).
 */
export type Complexity = 'O(1)' | 'O(log n)' | 'O(n)' | 'O(n log n)' | 'O(n^2)';

export interface ComplexityCase<State> {
  /** What is measured, e.g. "cooperative: find match, selective query". */
  readonly name: string;
  /** The fastest growth allowed; anything that classifies above it fails. */
  readonly budget: Complexity;
  /** Sizes n = 2^minLog2 .. 2^maxLog2 (defaults chosen by the runner). */
  readonly minLog2?: number;
  readonly maxLog2?: number;
  /** Calls of `run` timed together at each size (the talk's W); default chosen by the runner. */
  readonly callsPerSample?: number;
  /** Builds a structure of size n. Not timed. */
  setup(n: number): State;
  /**
   * One operation on the structure, called `callsPerSample` times per sample with i = 0, 1, ...
   * It must leave the size at n (e.g. push then pop, or add then remove), so every sample
   * measures the same n. Return a value that depends on the work, so it is not optimised away.
   */
  run(state: State, i: number): unknown;
}

/** Identity helper that gives a case its State type by inference. */
export function defineCase<State>(c: ComplexityCase<State>): ComplexityCase<State> {
  return c;
}
