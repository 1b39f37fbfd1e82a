/**
 * The chaos harness itself, once, at its smallest: a kill -9 run with a short load. It checks that
 * the processes record observations and that the run is read into a summary, not that the
 * cluster keeps the contract (`npm run chaos` reports that).
 */
import { describe, expect, it } from 'vitest';
import { redisBinaryPresent } from '../../test/redis/redis-server.js';
import { chaosRun } from './chaos-run.js';
import { summaryLine } from './summary.js';

describe('npm run chaos', () => {
  it('runs a kill -9 against real processes and summarises what they saw', async (ctx) => {
    if (!redisBinaryPresent()) return ctx.skip('redis-server is not installed');
    const { facts, summary } = await chaosRun(
      { scenario: 'kill', noPersist: false, ratePerSecond: 20, durationMs: 2000, settleMs: 10_000, callDeadlineMs: 10_000, failoverCapacity: 'at-kill', entry: ['--import', 'tsx', 'src/cli/main.ts'] },
      7,
      1,
      1,
    );
    expect(summary.finds).toBe(40);
    expect(summary.observations).toBeGreaterThan(summary.finds * 3);
    expect(facts.killAt).toBeGreaterThan(facts.loadStartAt);
    // Every shard was taken once before the load; the killed node's shards moved after it.
    expect(summary.shardMoves).toBeGreaterThan(0);
    expect(summaryLine(facts, summary)).toMatch(/^chaos kill run 1\/1 seed 7: finds 40 assigned \d+ \| lost \d+ \| told-without-seat \d+/);
  }, 240_000);
});
