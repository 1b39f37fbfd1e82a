import type { CompetitiveTicket } from './competitive-config.js';
import type { ExpansionSchedule } from './expansion-schedule.js';

/**
 * A waiting ticket as one batch sees it: its party's score, and the window in force for its wait
 * at the batch's time. Computed once per batch, so a ticket's wait carries over between batches
 * and its window widens without the pool being touched.
 */
export interface BatchEntry {
  readonly ticket: CompetitiveTicket;
  /** Players in the party. */
  readonly size: number;
  /** The party's mean score: what the batch is sorted by and windows are measured from. */
  readonly score: number;
  readonly waitMs: number;
  readonly maxScoreGap: number;
  readonly maxLatencyMs: number;
}

export function toBatchEntry(ticket: CompetitiveTicket, schedule: ExpansionSchedule, now: number): BatchEntry {
  let sum = 0;
  for (const player of ticket.players) sum += player.score;
  const waitMs = Math.max(0, now - ticket.enqueuedAt);
  const step = schedule.stepFor(waitMs);
  return {
    ticket,
    size: ticket.players.length,
    score: sum / ticket.players.length,
    waitMs,
    maxScoreGap: step.maxScoreGap,
    maxLatencyMs: step.maxLatencyMs,
  };
}

export function byScore(a: BatchEntry, b: BatchEntry): number {
  return a.score - b.score;
}
