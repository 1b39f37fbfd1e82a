/**
 * Smoke test for the benchmark runner: the transport floor runs in quick mode and yields positive
 * figures (no timing is asserted: the machine is shared), and the report writer produces JSON,
 * Markdown and an SVG chart.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { BenchRow } from './bench-suite.js';
import { describeReport, writeReport } from './report.js';
import { runSuite } from './suites.js';
import transportFloor from './transport-floor.bench.js';

describe('bench runner', () => {
  const directory = mkdtempSync(join(tmpdir(), 'gamefactory-bench-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  test('the transport floor reports positive rates and latencies in quick mode', async () => {
    const result = await runSuite(transportFloor, { quick: true });
    expect(result.error).toBeUndefined();
    // In process, then with the echo server in its own process (which adds its CPU per echo).
    const perSetup = ['calls/s', 'cpu µs per echo', 'cpu µs per echo', 'msgs/s', 'p50 ms', 'p50 ms', 'p99 ms', 'p99 ms'];
    expect(result.rows.map((r) => r.metric).sort()).toEqual([...perSetup, ...perSetup, 'server cpu µs per echo', 'server cpu µs per echo'].sort());
    for (const row of result.rows) {
      expect(Number.isFinite(row.value), `${row.subject} ${row.metric}`).toBe(true);
      expect(row.value, `${row.subject} ${row.metric}`).toBeGreaterThan(0);
    }
  }, 40_000);

  test('the report writer produces JSON, Markdown and a chart per group that varies n', async () => {
    const group = 'cooperative find (matches/s)';
    const rows: BenchRow[] = [1024, 4096, 16384].flatMap((n) => [
      { group, subject: 'gamefactory', n, metric: 'ops/s', value: 2e6, higherIsBetter: true },
      { group, subject: 'linear scan', n, metric: 'ops/s', value: 4e9 / n, higherIsBetter: true },
    ]);
    const floor: BenchRow = { group: 'transport floor', subject: 'unary echo', metric: 'calls/s', value: 9000, higherIsBetter: true };
    const report = describeReport([{ name: 'synthetic', elapsedMs: 1, rows: [...rows, floor] }], true);

    const written = await writeReport(report, directory);

    const json = JSON.parse(readFileSync(written.jsonPath, 'utf8')) as typeof report;
    expect(json.suites[0]?.rows).toHaveLength(7);
    const markdown = readFileSync(written.markdownPath, 'utf8');
    expect(markdown).toContain(`## ${group}`);
    expect(markdown).toContain('| 4096 | linear scan | ops/s ↑ | 976,600 | 0.49× |');
    expect(written.chartPaths).toHaveLength(1); // the floor has no n, so no chart
    const svg = readFileSync(written.chartPaths[0]!, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('linear scan');
    expect(svg.length).toBeGreaterThan(1000);
  });
});
