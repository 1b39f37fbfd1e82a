import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../perf/fuzz/fuzz-run.js';

/**
 * The fuzz suite at CI size (issue 14): 10,000 generated cases against a real coordinator over
 * gRPC on loopback, on a fixed seed so a failure reproduces. `npm run fuzz -- --runs N` for more.
 */
describe('fuzzing every RPC and the game-server link', () => {
  it('10,000 cases: clean status codes, bystanders untouched, heap bounded', { timeout: 180_000 }, async () => {
    const report = await runFuzz({ runs: 10_000, seed: 20261123, concurrency: 128 });
    if (report.defects.length > 0) console.error(JSON.stringify(report.defects.slice(0, 10), null, 2));
    expect(report.defects.map((d) => d.problem)).toEqual([]);
    expect(report.runs).toBe(10_000);
    // Every case kind ran, and most cases were refused for a reason or served.
    expect(Object.keys(report.codes).sort()).toEqual(['cancelFind', 'deaf', 'findGame', 'findGames', 'link', 'queryStats', 'raw']);
    // Games end as they fill and refused tickets hold nothing: the heap may grow a little, not with the case count.
    expect(report.heapMb.after - report.heapMb.before).toBeLessThan(64);
    console.log(`fuzz: ${JSON.stringify({ codes: report.codes, known: report.known, heapMb: report.heapMb, coordinator: report.coordinator, ms: report.durationMs })}`);
  });
});
