import { radixOrder } from '../collections/radix-order.js';
import type { CompetitiveTicket } from './competitive-config.js';
import type { ExpansionSchedule } from './expansion-schedule.js';

/**
 * A waiting ticket as one batch sees it: its party's score, and the window in force for its wait
 * at the batch's time. Computed once per batch, so a ticket's wait carries over between batches
 * and its window widens without the pool being touched.
 */
export interface BatchEntry {
  readonly ticket: CompetitiveTicket;
  /**
   * Position in the sorted batch (in the slice, for a worker's stand-ins): how a solved slice
   * names its tickets without looking anything up.
   */
  readonly index: number;
  /** Players in the party. */
  readonly size: number;
  /** The party's mean score: what the batch is sorted by and windows are measured from. */
  readonly score: number;
  readonly waitMs: number;
  readonly maxScoreGap: number;
  readonly maxLatencyMs: number;
}

/** The party's mean score, the key a batch is sorted by. */
export function partyScore(ticket: CompetitiveTicket): number {
  let sum = 0;
  for (const player of ticket.players) sum += player.score;
  return sum / ticket.players.length;
}

export function toBatchEntry(
  ticket: CompetitiveTicket,
  schedule: ExpansionSchedule,
  now: number,
  /** Its position in the sorted batch; 0 for an entry looked at on its own. */
  index = 0,
  score: number = partyScore(ticket),
): BatchEntry {
  const waitMs = Math.max(0, now - ticket.enqueuedAt);
  const step = schedule.stepFor(waitMs);
  return {
    ticket,
    index,
    size: ticket.players.length,
    score,
    waitMs,
    // A rating system's uncertainty widens the window: an unsure score is a wide guess.
    maxScoreGap: step.maxScoreGap + (ticket.scoreUncertainty ?? 0),
    maxLatencyMs: step.maxLatencyMs,
  };
}

/**
 * A batch in ascending score as columns (struct of arrays): position k holds the k-th lowest
 * party score, ties in the order the tickets were given (what a stable
 * `entries.sort((a, b) => a.score - b.score)` gives). The 1v1 pairing and the slice encoding read
 * the columns directly; entry objects are made only for the solvers that work on them (teams,
 * maps and regions, soft preferences). A batch of 100k entry objects cost as long as the sort
 * itself (allocation, then the young-generation collections copying them while the batch ran).
 */
export class SortedBatch {
  constructor(
    /** The tickets in sorted order. */
    readonly tickets: readonly CompetitiveTicket[],
    /**
     * Their ids, read while the tickets were walked in the order given: the games of a batch name
     * every ticket, and reading the id through each ticket in score order (scattered over the
     * heap) missed the cache once per ticket.
     */
    readonly ticketIds: readonly string[],
    /** `order[k]`: where the ticket at sorted position k was in the list the batch was made from. */
    readonly order: Uint32Array,
    readonly size: Int32Array,
    readonly score: Float64Array,
    readonly waitMs: Float64Array,
    readonly maxScoreGap: Float64Array,
    readonly maxLatencyMs: Float64Array,
  ) {}

  get length(): number {
    return this.tickets.length;
  }

  /** Position k as an entry object, its index the position. */
  entry(k: number): BatchEntry {
    // Same fields in the same order as toBatchEntry, so every entry has one shape.
    return {
      ticket: this.tickets[k] as CompetitiveTicket,
      index: k,
      size: this.size[k] as number,
      score: this.score[k] as number,
      waitMs: this.waitMs[k] as number,
      maxScoreGap: this.maxScoreGap[k] as number,
      maxLatencyMs: this.maxLatencyMs[k] as number,
    };
  }

  /** Positions [from, to) as entry objects. */
  entries(from = 0, to = this.length): BatchEntry[] {
    const entries = new Array<BatchEntry>(to - from);
    for (let k = from; k < to; k++) entries[k - from] = this.entry(k);
    return entries;
  }

  /** Entries already in ascending score (consecutive positions of a batch, or stand-ins) as a batch. */
  static of(entries: readonly BatchEntry[]): SortedBatch {
    const n = entries.length;
    const order = new Uint32Array(n);
    const size = new Int32Array(n);
    const score = new Float64Array(n);
    const waitMs = new Float64Array(n);
    const maxScoreGap = new Float64Array(n);
    const maxLatencyMs = new Float64Array(n);
    entries.forEach((entry, k) => {
      order[k] = k;
      size[k] = entry.size;
      score[k] = entry.score;
      waitMs[k] = entry.waitMs;
      maxScoreGap[k] = entry.maxScoreGap;
      maxLatencyMs[k] = entry.maxLatencyMs;
    });
    const tickets = entries.map((entry) => entry.ticket);
    const ids = tickets.map((ticket) => ticket.ticketId);
    return new SortedBatch(tickets, ids, order, size, score, waitMs, maxScoreGap, maxLatencyMs);
  }
}

/** The tickets as batch entries in ascending score (see SortedBatch). */
export function sortedBatchEntries(
  tickets: readonly CompetitiveTicket[],
  schedule: ExpansionSchedule,
  now: number,
): BatchEntry[] {
  return sortedBatch(tickets, schedule, now).entries();
}

/**
 * The tickets as a SortedBatch. Orders indices by scores held in one Float64Array with a radix
 * sort (O(n); a comparator sort of 100k scores took as long as the rest of a 1v1 batch), after
 * reading every field the batch needs from the tickets in the given order (sequential in memory);
 * the columns are then filled in sorted order from those arrays alone, without chasing each
 * ticket's pointers again in an order that jumps around the heap.
 */
export function sortedBatch(
  tickets: readonly CompetitiveTicket[],
  schedule: ExpansionSchedule,
  now: number,
  /** The tickets' party scores, when the caller already has them (partyScore of each). */
  knownScores?: Float64Array,
): SortedBatch {
  const n = tickets.length;
  const scores = knownScores ?? new Float64Array(n);
  const ids = new Array<string>(n);
  const sizes = new Int32Array(n);
  const waits = new Float64Array(n);
  const gaps = new Float64Array(n);
  const latencies = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const ticket = tickets[k] as CompetitiveTicket;
    if (knownScores === undefined) scores[k] = partyScore(ticket);
    ids[k] = ticket.ticketId;
    sizes[k] = ticket.players.length;
    const waitMs = Math.max(0, now - ticket.enqueuedAt);
    const step = schedule.stepFor(waitMs);
    waits[k] = waitMs;
    // A rating system's uncertainty widens the window, as in toBatchEntry.
    gaps[k] = step.maxScoreGap + (ticket.scoreUncertainty ?? 0);
    latencies[k] = step.maxLatencyMs;
  }
  const order = radixOrder(scores);
  const sorted = new Array<CompetitiveTicket>(n);
  const sortedIds = new Array<string>(n);
  const size = new Int32Array(n);
  const score = new Float64Array(n);
  const waitMs = new Float64Array(n);
  const maxScoreGap = new Float64Array(n);
  const maxLatencyMs = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const at = order[k] as number;
    sorted[k] = tickets[at] as CompetitiveTicket;
    sortedIds[k] = ids[at] as string;
    size[k] = sizes[at] as number;
    score[k] = scores[at] as number;
    waitMs[k] = waits[at] as number;
    maxScoreGap[k] = gaps[at] as number;
    maxLatencyMs[k] = latencies[at] as number;
  }
  return new SortedBatch(sorted, sortedIds, order, size, score, waitMs, maxScoreGap, maxLatencyMs);
}
