/**
 * How long a live reload holds the core when a competitive factory's settings change: its pool is
 * rebuilt under the new settings in the reload's step, so the pause grows with the tickets waiting.
 * Printed beside the time the same tickets took to be admitted (one find each), in the same run:
 *   npx tsx perf/profile/reload-pause.ts [n=100000] [reps=3]
 * Each figure is the median of `reps` fresh cores, after one untimed round (the JIT).
 */
import { parseConfig } from '../../src/config/load.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from '../../test/coordinator/fixture.js';

const n = Number(process.argv[2] ?? 100_000);
const reps = Number(process.argv[3] ?? 3);
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 1000000, maxPooledPerFactory: 1000000, ticketTtlSeconds: 600 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000000, intervalMs: 100000 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 0.1 }]
`;
const next = parseConfig(YAML.replace('maxScoreGap: 0.1', 'maxScoreGap: 0.2'));

function round(): { findsMs: number; reloadMs: number } {
  const host = testCore(parseConfig(YAML), new ManualTimers());
  const hello = { serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 100, maxStartsPerSecond: 0 }, runningGames: [] };
  host.connectServer(hello, new RecordingChannel());
  const t0 = performance.now();
  // Scores 1 apart under a 0.1 window: nothing pairs, every ticket waits in the pool.
  for (let k = 0; k < n; k++) {
    const request = { ticketId: `t${k}`, template: 'duel', party: [{ playerId: `p${k}`, score: k }], partition: new Map(), matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] };
    host.find(request, new RecordingListener());
  }
  const t1 = performance.now();
  const outcome = host.reload(next);
  const t2 = performance.now();
  if (!('changes' in outcome)) throw new Error(`reload refused: ${outcome.refused.join('; ')}`);
  return { findsMs: t1 - t0, reloadMs: t2 - t1 };
}

round();
const rounds = Array.from({ length: reps }, round);
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const findsMs = median(rounds.map((r) => r.findsMs));
const reloadMs = median(rounds.map((r) => r.reloadMs));
console.log(`${n} tickets waiting: admitting them ${findsMs.toFixed(0)} ms, reload of their factory ${reloadMs.toFixed(0)} ms (ratio ${(reloadMs / findsMs).toFixed(3)})`);
