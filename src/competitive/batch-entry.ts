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
 * The tickets as batch entries in ascending score, ties kept in the given order (what a stable
 * `entries.sort((a, b) => a.score - b.score)` gives). Orders indices by scores held in one
 * Float64Array with a radix sort (O(n); a comparator sort of 100k scores took as long as the rest
 * of a 1v1 batch, perf/PROFILE.md), then makes the entries in sorted order: sorting the entry objects
 * themselves boxed a double for every comparison and chased a pointer to a scattered object for
 * every score read, and entries made before the sort sit in memory in pool order, so the walks
 * over the sorted batch that follow (pairing, assembling games) jumped around the heap.
 */
export function sortedBatchEntries(
  tickets: readonly CompetitiveTicket[],
  schedule: ExpansionSchedule,
  now: number,
): BatchEntry[] {
  return sortedBatch(tickets, schedule, now).entries;
}

/**
 * sortedBatchEntries with the order it sorted by: `order[k]` is the position in `tickets` of the
 * entry at sorted position k, so a caller can mark tickets by their place in its own list.
 */
export function sortedBatch(
  tickets: readonly CompetitiveTicket[],
  schedule: ExpansionSchedule,
  now: number,
  /** The tickets' party scores, when the caller already has them (partyScore of each). */
  knownScores?: Float64Array,
): { readonly entries: BatchEntry[]; readonly order: Uint32Array } {
  const n = tickets.length;
  // Everything an entry holds is read from the tickets here, in pool order (sequential in
  // memory); the entries are then made in sorted order from these arrays alone, without chasing
  // each ticket's pointers again in an order that jumps around the heap.
  const scores = knownScores ?? new Float64Array(n);
  const sizes = new Int32Array(n);
  const waits = new Float64Array(n);
  const gaps = new Float64Array(n);
  const latencies = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const ticket = tickets[k] as CompetitiveTicket;
    if (knownScores === undefined) scores[k] = partyScore(ticket);
    sizes[k] = ticket.players.length;
    const waitMs = Math.max(0, now - ticket.enqueuedAt);
    const step = schedule.stepFor(waitMs);
    waits[k] = waitMs;
    // A rating system's uncertainty widens the window, as in toBatchEntry.
    gaps[k] = step.maxScoreGap + (ticket.scoreUncertainty ?? 0);
    latencies[k] = step.maxLatencyMs;
  }
  const order = radixOrder(scores);
  const entries: BatchEntry[] = [];
  for (let k = 0; k < n; k++) {
    const at = order[k] as number;
    // Same fields in the same order as toBatchEntry, so every entry has one shape.
    entries.push({
      ticket: tickets[at] as CompetitiveTicket,
      index: k,
      size: sizes[at] as number,
      score: scores[at] as number,
      waitMs: waits[at] as number,
      maxScoreGap: gaps[at] as number,
      maxLatencyMs: latencies[at] as number,
    });
  }
  return { entries, order };
}
