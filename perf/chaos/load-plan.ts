/** What a chaos load generator does (perf/chaos/load.ts), passed to it as JSON. */
export interface LoadPlan {
  /** Coordinator nodes, host:port; each ticket's first node goes round the list. */
  readonly addresses: readonly string[];
  /** Ticket and player id prefix, unique per generator. */
  readonly prefix: string;
  readonly template: string;
  /** The factories finds go to: their partition, and their name as the contract knows it. */
  readonly factories: readonly { readonly partition: Record<string, string>; readonly name: string }[];
  readonly ratePerSecond: number;
  readonly durationMs: number;
  /** At most this many tickets unsettled at once (the rate waits for it). */
  readonly maxInFlight: number;
  /** After the last find, how long the generator waits for the tickets still open. */
  readonly settleMs: number;
  /** A call's first answer must come within this. */
  readonly callDeadlineMs: number;
  /** Every ticket starts on the first address (a fresh client per ticket), resuming on the next ones. */
  readonly firstNodeOnly?: boolean;
  readonly seed: number;
  /** The JSON-lines file observations go to. */
  readonly out: string;
}
