import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoad } from '../../clients/loadgen/load-generator.js';
import { startCoordinatorProcess } from '../../src/app/coordinator-process.js';
import { seededRandom } from '../../src/competitive/index.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { parseArrivalLog } from '../../src/replay/arrival-log.js';
import { recordedRun, replayArrivals } from '../../src/replay/replay.js';

const CONFIG = `
factories:
  - name: duel
    partitioning: { version: [v1] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 10000, intervalMs: 250 }
      target: { waitP99Ms: 4000 }
`;

describe('gamefactory start --record, then gamefactory replay', () => {
  it('a real coordinator under the load generator records its tickets; replaying them with its configuration gives its waits within 10% (median and p90)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-record-'));
    const recording = join(dir, 'arrivals.jsonl');
    const config = parseConfig(CONFIG, 'record.yaml');
    const running = await startCoordinatorProcess({
      config,
      listen: '127.0.0.1:0',
      metricsListen: '127.0.0.1:0',
      dataDir: join(dir, 'data'),
      log: silentLog,
      record: recording,
    });
    let report;
    try {
      const random = seededRandom(3);
      const normal = () => 1500 + 200 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      const scores = Array.from({ length: 2400 }, normal);
      report = await runLoad({
        address: `127.0.0.1:${running.grpcPort}`,
        servers: 2,
        maxGamesPerServer: 5000,
        playersPerGame: 2,
        tickets: scores.length,
        rate: 150,
        concurrency: scores.length,
        mode: 'stream',
        template: 'duel',
        partition: { version: 'v1' },
        runId: 'rec',
        score: (i) => scores[i] as number,
      });
    } finally {
      await running.stop();
    }
    expect(report.assigned).toBeGreaterThan(2300);

    const log = parseArrivalLog(readFileSync(recording, 'utf8'), recording);
    const arrivals = log.events.filter((e) => 'arrive' in e);
    expect(arrivals.length).toBe(2400);
    // Nothing personal: ids are hashed, never the run's own.
    expect(readFileSync(recording, 'utf8')).not.toContain('rec-p1');
    const recorded = recordedRun(log)!;
    const replayed = replayArrivals(log, config, 'same configuration');
    expect(recorded.overall.matched).toBeGreaterThan(2300);
    expect(Math.abs(replayed.overall.waitS.p50 / recorded.overall.waitS.p50 - 1)).toBeLessThan(0.1);
    expect(Math.abs(replayed.overall.waitS.p90 / recorded.overall.waitS.p90 - 1)).toBeLessThan(0.1);
  }, 120_000);
});
