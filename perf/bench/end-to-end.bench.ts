/**
 * FindGame end to end over gRPC on loopback, side by side in one run with the transport's floors
 * (a bare grpc-js unary echo and a bare bidirectional-stream echo): the coordinator, its fake game
 * servers and its clients share one process, as the echo's client and server do.
 * Issue 6 targets: FindGame >= 1/2 of the unary echo's calls/s; FindGames >= 1/2 of the stream
 * echo's msgs/s; >= 3 million 4-player cooperative games created per hour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCoordinatorProcess } from '../../src/app/coordinator-process.js';
import { loadConfigFile } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { runLoad, type LoadReport } from '../../clients/loadgen/load-generator.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';
import transportFloor from './transport-floor.bench.js';

const UNARY = 'end to end over gRPC: one call per ticket vs unary echo';
const STREAM = 'end to end over gRPC: one stream vs bidi stream echo';
const GAMES = 'cooperative 4-player games created, end to end';

async function measure(mode: 'unary' | 'stream', tickets: number, concurrency: number): Promise<LoadReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-bench-'));
  const running = await startCoordinatorProcess({
    config: loadConfigFile('factories.yaml'),
    listen: '127.0.0.1:0',
    metricsListen: '127.0.0.1:0',
    dataDir,
    log: silentLog,
  });
  const load = (runId: string, count: number) =>
    runLoad({
      address: `127.0.0.1:${running.grpcPort}`,
      servers: 8,
      maxGamesPerServer: 10_000,
      playersPerGame: 4,
      tickets: count,
      rate: 0,
      concurrency,
      mode,
      template: 'diablo',
      partition: { difficulty: 'hard', hardcore: false, version: 'v201' },
      runId,
    });
  try {
    // Warm up (JIT, connections) untimed, as the echo floors do, then measure.
    await load(`warmup-${mode}`, Math.ceil(tickets / 10));
    return await load(`bench-${mode}`, tickets);
  } finally {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const endToEnd: BenchSuite = {
  name: 'end-to-end',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    // The floors are measured before and after ours and averaged: on a shared machine the
    // transport's own rate drifts over a run, and a ratio against one side of it would too.
    const before = await transportFloor.run(options);
    const tickets = options.quick ? 2000 : 20_000;
    // Same number in flight as the floors: 64 unary calls, a window of 256 on the stream.
    const unary = await measure('unary', tickets, 64);
    const stream = await measure('stream', tickets * 2, 256);
    const after = await transportFloor.run(options);
    const floor = (prefix: string, metric: string) => {
      const values = [before, after].map((rows) => rows.find((r) => r.subject.startsWith(prefix) && r.metric === metric)?.value);
      if (values.some((v) => v === undefined)) return undefined;
      return { value: (values[0]! + values[1]!) / 2 };
    };
    const rows: BenchRow[] = [];
    const add = (group: string, subject: string, metric: string, value: number | undefined, higherIsBetter: boolean) => {
      if (value !== undefined) rows.push({ group, subject, metric, value, higherIsBetter });
    };
    for (const [group, report, echo, rate] of [
      [UNARY, unary, 'unary echo', 'calls/s'],
      [STREAM, stream, 'bidi stream echo', 'msgs/s'],
    ] as const) {
      add(group, `gamefactory ${report === unary ? 'FindGame' : 'FindGames'}`, 'per s', report.matchesPerSecond, true);
      add(group, `grpc-js ${echo} (floor)`, 'per s', floor(echo, rate)?.value, true);
      add(group, `gamefactory ${report === unary ? 'FindGame' : 'FindGames'}`, 'p99 ms', report.p99Ms, false);
      add(group, `grpc-js ${echo} (floor)`, 'p99 ms', floor(echo, 'p99 ms')?.value, false);
      if (report.assigned < report.sent) throw new Error(`${group}: only ${report.assigned} of ${report.sent} assigned: ${JSON.stringify(report.errorsByCode)}`);
    }
    const gamesPerHour = (r: LoadReport) => (r.gamesEnded / r.elapsedMs) * 3_600_000;
    add(GAMES, 'gamefactory over FindGames', 'games/hour', gamesPerHour(stream), true);
    add(GAMES, 'gamefactory over FindGame', 'games/hour', gamesPerHour(unary), true);
    add(GAMES, 'target (issue 6)', 'games/hour', 3_000_000, true);
    return rows;
  },
};

export default endToEnd;
