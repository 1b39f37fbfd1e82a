import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadOptions } from '../../clients/loadgen/load-generator.js';
import { startCoordinatorProcess } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { findCollector } from '../complexity/gc.js';
import { memorySlopes, type MemorySample } from './memory-slope.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100000, ticketTtlSeconds: 120 }
factories:
  - name: soak
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;

export interface SoakOptions {
  readonly minutes: number;
  /** Fraction of the measured maximum rate to drive (0.5 by default: a sustained load, not a burst). */
  readonly load: number;
  /** Tickets for the maximum-rate measurement. */
  readonly probeTickets: number;
  readonly servers: number;
  /** Each segment connects fresh servers and closes them at its end: servers join and leave. */
  readonly segmentSeconds: number;
  readonly warmupMinutes: number;
  readonly onProgress?: (line: string) => void;
}

export interface SoakReport {
  readonly maxRatePerSecond: number;
  readonly drivenRatePerSecond: number;
  readonly samples: MemorySample[];
  /** p99 time to assignment per minute of the soak, ms. */
  readonly p99ByMinute: { minute: number; p99Ms: number; assigned: number; errors: number }[];
  readonly slopes: { rssMbPerMin: number; heapMbPerMin: number };
  readonly flat: boolean;
  readonly errorsByCode: Record<string, number>;
}

/**
 * The soak (issue 14): a coordinator in this process (gRPC on loopback, LMDB in a temp dir), its
 * maximum rate measured, then driven at `load` of it for `minutes` in segments whose game servers
 * join at the start and leave at the end; memory sampled every 5 s after a full collection.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-soak-'));
  const running = await startCoordinatorProcess({ config: parseConfig(YAML, 'soak.yaml'), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir: dir, log: silentLog });
  const address = `127.0.0.1:${running.grpcPort}`;
  const gc = findCollector();
  const base: Omit<LoadOptions, 'tickets' | 'rate' | 'runId'> = {
    address,
    servers: options.servers,
    maxGamesPerServer: 1000,
    playersPerGame: 4,
    concurrency: 2048,
    mode: 'stream',
    template: 'soak',
    partition: { region: 'eu' },
  };
  try {
    const probe = await runLoad({ ...base, tickets: options.probeTickets, rate: 0, concurrency: 512, runId: 'probe' });
    const maxRate = probe.matchesPerSecond;
    const rate = Math.max(1, Math.round(maxRate * options.load));
    options.onProgress?.(`max ${maxRate.toFixed(0)} matches/s; driving ${rate}/s for ${options.minutes} min`);

    const started = Date.now();
    const minuteOf = () => (Date.now() - started) / 60_000;
    const samples: MemorySample[] = [];
    const sample = () => {
      gc();
      const m = process.memoryUsage();
      samples.push({ minute: minuteOf(), rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 });
    };
    sample();
    const sampler = setInterval(sample, 5000);
    const p99ByMinute: SoakReport['p99ByMinute'] = [];
    const errorsByCode: Record<string, number> = {};
    let segment = 0;
    try {
      while (minuteOf() < options.minutes) {
        const report = await runLoad({ ...base, tickets: rate * options.segmentSeconds, rate, runId: `soak${segment++}` });
        for (const [code, n] of Object.entries(report.errorsByCode)) errorsByCode[code] = (errorsByCode[code] ?? 0) + n;
        const errors = Object.values(report.errorsByCode).reduce((a, b) => a + b, 0);
        p99ByMinute.push({ minute: Number(minuteOf().toFixed(2)), p99Ms: Number(report.p99Ms.toFixed(1)), assigned: report.assigned, errors });
        const last = samples.at(-1)!;
        options.onProgress?.(`${minuteOf().toFixed(1)} min: p99 ${report.p99Ms.toFixed(1)} ms, ${report.assigned} assigned, ${errors} errors, rss ${last.rssMb.toFixed(0)} MB, heap ${last.heapMb.toFixed(0)} MB`);
      }
    } finally {
      clearInterval(sampler);
    }
    sample();
    const slopes = memorySlopes(samples, Math.min(options.warmupMinutes, options.minutes / 3));
    return {
      maxRatePerSecond: maxRate,
      drivenRatePerSecond: rate,
      samples,
      p99ByMinute,
      slopes,
      // Flat: neither grows nor shrinks by more than 2 MB a minute once warm.
      flat: Math.abs(slopes.rssMbPerMin) <= 2 && Math.abs(slopes.heapMbPerMin) <= 2,
      errorsByCode,
    };
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
