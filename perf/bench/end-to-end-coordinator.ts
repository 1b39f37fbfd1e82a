/**
 * The coordinator as the end-to-end bench loads it: `gamefactory start` in its own process
 * (factories.yaml, plaintext on loopback, a fresh data directory), and the load generator (20 fake
 * game servers and the players' clients) in this one. A load's CPU per ticket is read on both
 * sides: the coordinator's from /proc, the load generator's from this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadReport } from '../../clients/loadgen/load-generator.js';
import { coordinatorEntry, startServerChild, type ServerChild } from './child-process.js';

/** How the players call: one FindGame a ticket (`unary`) or one FindGames stream, batched or one find a message. */
export interface LoadShape {
  readonly mode: 'unary' | 'stream';
  readonly batch: boolean;
  readonly concurrency: number;
}

export interface TimedLoad {
  readonly report: LoadReport;
  readonly cpuMicrosPerTicket: number;
  /** This process's CPU per ticket: the load generator's clients and fake servers. */
  readonly loadCpuMicrosPerTicket: number;
}

export interface LoadedCoordinator {
  readonly child: ServerChild;
  readonly metricsPort: string | undefined;
  /**
   * `tickets` finds through a fresh load generator, as fast as `concurrency` allows. `runId` is in
   * every ticket, player and server id, so loads on one coordinator never share one.
   */
  load(runId: string, tickets: number): Promise<TimedLoad>;
  stop(): Promise<void>;
}

export async function startCoordinator(shape: LoadShape, nodeArgs: readonly string[] = []): Promise<LoadedCoordinator> {
  const entry = coordinatorEntry(); // builds first: a failed build leaves no data directory behind
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-bench-'));
  let metricsPort: string | undefined;
  const child = await startServerChild(
    [...entry, 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', dataDir, '--log-level', 'info'],
    (line) => {
      metricsPort ??= /"metrics":"127\.0\.0\.1:(\d+)"/.exec(line)?.[1];
      const match = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(line);
      return match ? Number(match[1]) : undefined;
    },
    nodeArgs,
  );
  return {
    child,
    get metricsPort() {
      return metricsPort;
    },
    async load(runId, tickets) {
      const cpuBefore = child.cpuMicros();
      const loadBefore = process.cpuUsage();
      const report = await runLoad({
        address: `127.0.0.1:${child.port}`,
        servers: 20,
        maxGamesPerServer: 10_000,
        playersPerGame: 4,
        tickets,
        rate: 0,
        concurrency: shape.concurrency,
        mode: shape.mode,
        batch: shape.batch,
        template: 'diablo',
        partition: { difficulty: 'hard', hardcore: false, version: 'v201' },
        runId,
      });
      const loadUsed = process.cpuUsage(loadBefore);
      const assigned = Math.max(report.assigned, 1);
      return { report, cpuMicrosPerTicket: (child.cpuMicros() - cpuBefore) / assigned, loadCpuMicrosPerTicket: (loadUsed.user + loadUsed.system) / assigned };
    },
    async stop() {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
