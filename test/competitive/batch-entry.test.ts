import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedBatchEntries, toBatchEntry } from '../../src/competitive/batch-entry.js';
import type { CompetitiveTicket } from '../../src/competitive/competitive-config.js';
import { ExpansionSchedule } from '../../src/competitive/expansion-schedule.js';

const schedule = new ExpansionSchedule([
  { afterMs: 0, maxScoreGap: 50, maxLatencyMs: 80 },
  { afterMs: 5_000, maxScoreGap: 150, maxLatencyMs: 200 },
]);

const ticket = fc
  .record({
    scores: fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 3 }),
    enqueuedAt: fc.integer({ min: 0, max: 10_000 }),
    uncertainty: fc.option(fc.integer({ min: 0, max: 700 }), { nil: undefined }),
  })
  .map(
    ({ scores, enqueuedAt, uncertainty }): Omit<CompetitiveTicket, 'ticketId'> => ({
      players: scores.map((score, i) => ({ playerId: `p${i}`, score })),
      enqueuedAt,
      latencyMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
      ...(uncertainty !== undefined && { scoreUncertainty: uncertainty }),
    }),
  );

describe('batch entries', () => {
  // The sorted fast path once dropped the rating uncertainty that toBatchEntry adds: both must agree.
  it('sortedBatchEntries gives every ticket the same window, wait and score as toBatchEntry', () => {
    fc.assert(
      fc.property(fc.array(ticket, { maxLength: 40 }), (raw) => {
        const tickets = raw.map((t, i) => ({ ...t, ticketId: `t${i}` }));
        const now = 12_000;
        const sorted = sortedBatchEntries(tickets, schedule, now);
        expect(sorted.map((e) => e.score)).toEqual([...sorted.map((e) => e.score)].sort((a, b) => a - b));
        for (const entry of sorted) {
          const alone = toBatchEntry(entry.ticket, schedule, now, entry.index);
          expect(entry).toEqual(alone);
        }
      }),
    );
  });
});
