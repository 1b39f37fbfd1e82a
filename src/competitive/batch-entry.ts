import { radixOrder } from '../collections/radix-order.js';
import type { CompetitiveTicket, ExpansionStep } from './competitive-config.js';
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

/**
 * Where a ticket's score window comes from when not from the schedule: a wait target's windows
 * (target-windows.ts), from the ticket, its party score and its wait.
 */
export interface ScoreWindows {
  windowOf(ticket: CompetitiveTicket, score: number, waitMs: number): number;
}

export function toBatchEntry(
  ticket: CompetitiveTicket,
  schedule: ExpansionSchedule,
  now: number,
  /** Its position in the sorted batch; 0 for an entry looked at on its own. */
  index = 0,
  score: number = partyScore(ticket),
  windows?: ScoreWindows,
): BatchEntry {
  const waitMs = Math.max(0, now - ticket.enqueuedAt);
  const step = schedule.stepFor(waitMs);
  return {
    ticket,
    index,
    size: ticket.players.length,
    score,
    waitMs,
    maxScoreGap: scoreWindow(ticket, score, waitMs, step, windows),
    maxLatencyMs: latencyCap(ticket, step),
  };
}

/**
 * The score window in force: the schedule's step (or a target's window), infinite once the
 * ticket's own budget is spent, widened by a rating system's uncertainty: an unsure score is a wide
 * guess.
 */
function scoreWindow(ticket: CompetitiveTicket, score: number, waitMs: number, step: ExpansionStep, windows: ScoreWindows | undefined): number {
  const budget = ticket.waitBudgetMs;
  const window =
    budget !== undefined && waitMs >= budget ? Infinity : windows === undefined ? step.maxScoreGap : windows.windowOf(ticket, score, waitMs);
  return window + (ticket.scoreUncertainty ?? 0);
}

/** The step's latency cap, never past the ticket's own ceiling. */
function latencyCap(ticket: CompetitiveTicket, step: ExpansionStep): number {
  const ceiling = ticket.maxLatencyMs;
  return ceiling === undefined ? step.maxLatencyMs : Math.min(ceiling, step.maxLatencyMs);
}

/** What a batch reads of each ticket, one column per field, position k for the k-th ticket. */
export interface BatchColumns {
  readonly tickets: readonly CompetitiveTicket[];
  readonly ticketIds: readonly string[];
  readonly size: Int32Array;
  readonly score: Float64Array;
  readonly waitMs: Float64Array;
  readonly maxScoreGap: Float64Array;
  readonly maxLatencyMs: Float64Array;
}

/**
 * A batch in ascending score as columns (struct of arrays): position k holds the k-th lowest
 * party score, ties in the order the tickets were given (what a stable
 * `entries.sort((a, b) => a.score - b.score)` gives). The 1v1 pairing and the slice encoding read
 * the columns directly; entry objects are made only for the solvers that work on them (teams,
 * maps and regions, soft preferences). A batch of 100k entry objects cost as long as the sort
 * itself (allocation, then the young-generation collections copying them while the batch ran).
 *
 * Putting a column in score order reads the given one at random, a cache miss per ticket, so the
 * columns a plain 1v1 batch does not need (the tickets themselves, party sizes, latency caps)
 * are put in order only when first read. The ids are: every game names its tickets, and reading
 * each id through its ticket in score order (scattered over the heap) missed the cache twice.
 */
export class SortedBatch implements BatchColumns {
  readonly ticketIds: readonly string[];
  readonly score: Float64Array;
  readonly waitMs: Float64Array;
  readonly maxScoreGap: Float64Array;
  private sortedTickets: readonly CompetitiveTicket[] | undefined;
  private sortedSize: Int32Array | undefined;
  private sortedMaxLatencyMs: Float64Array | undefined;

  constructor(
    private readonly given: BatchColumns,
    /** `order[k]`: the position in `given` of the ticket at sorted position k. */
    readonly order: Uint32Array,
  ) {
    this.ticketIds = gatheredList(given.ticketIds, order);
    this.score = gatheredFloats(given.score, order);
    this.waitMs = gatheredFloats(given.waitMs, order);
    this.maxScoreGap = gatheredFloats(given.maxScoreGap, order);
  }

  get length(): number {
    return this.order.length;
  }

  get tickets(): readonly CompetitiveTicket[] {
    return (this.sortedTickets ??= gatheredList(this.given.tickets, this.order));
  }

  get size(): Int32Array {
    return (this.sortedSize ??= gatheredInts(this.given.size, this.order));
  }

  get maxLatencyMs(): Float64Array {
    return (this.sortedMaxLatencyMs ??= gatheredFloats(this.given.maxLatencyMs, this.order));
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
    const tickets = entries.map((entry) => entry.ticket);
    const columns: BatchColumns = {
      tickets,
      ticketIds: tickets.map((ticket) => ticket.ticketId),
      size: Int32Array.from(entries, (entry) => entry.size),
      score: Float64Array.from(entries, (entry) => entry.score),
      waitMs: Float64Array.from(entries, (entry) => entry.waitMs),
      maxScoreGap: Float64Array.from(entries, (entry) => entry.maxScoreGap),
      maxLatencyMs: Float64Array.from(entries, (entry) => entry.maxLatencyMs),
    };
    return new SortedBatch(columns, identityOrder(entries.length));
  }
}

/** 0, 1, ..., n − 1: the order of columns already sorted. */
export function identityOrder(n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  return order;
}

// One function per element kind, so each loop stays monomorphic.
function gatheredList<T>(column: readonly T[], order: Uint32Array): T[] {
  const result = new Array<T>(order.length);
  for (let k = 0; k < order.length; k++) result[k] = column[order[k] as number] as T;
  return result;
}

function gatheredFloats(column: Float64Array, order: Uint32Array): Float64Array {
  const result = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) result[k] = column[order[k] as number] as number;
  return result;
}

function gatheredInts(column: Int32Array, order: Uint32Array): Int32Array {
  const result = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) result[k] = column[order[k] as number] as number;
  return result;
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
  /** Score windows from a wait target instead of the schedule's steps. */
  windows?: ScoreWindows,
): SortedBatch {
  const n = tickets.length;
  const score = knownScores ?? new Float64Array(n);
  const ticketIds = new Array<string>(n);
  const size = new Int32Array(n);
  const waitMs = new Float64Array(n);
  const maxScoreGap = new Float64Array(n);
  const maxLatencyMs = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const ticket = tickets[k] as CompetitiveTicket;
    if (knownScores === undefined) score[k] = partyScore(ticket);
    ticketIds[k] = ticket.ticketId;
    size[k] = ticket.players.length;
    const wait = Math.max(0, now - ticket.enqueuedAt);
    const step = schedule.stepFor(wait);
    waitMs[k] = wait;
    maxScoreGap[k] = scoreWindow(ticket, score[k] as number, wait, step, windows);
    maxLatencyMs[k] = latencyCap(ticket, step);
  }
  return new SortedBatch({ tickets, ticketIds, size, score, waitMs, maxScoreGap, maxLatencyMs }, radixOrder(score));
}
