/**
 * `npm run chaos -- kill|pause|redis-restart|overload|failover [--runs N] [--seed S]
 *  [--no-persist] [--capacity-after-requeue] [--rate R] [--duration-ms D] [--settle-ms S] [--call-deadline-ms C]`:
 * real-process chaos against a local cluster, one summary line per run (see chaos-run.ts).
 * Loopback only; every run stops by itself.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadavg } from 'node:os';
import { coordinatorEntry } from '../bench/child-process.js';
import { redisBinaryPresent } from '../../test/redis/redis-server.js';
import { chaosRun } from './chaos-run.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { summaryLine } from './summary.js';

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};

const program = new Command('chaos')
  .argument('<scenario>', SCENARIOS.join(' | '))
  .option('--runs <n>', 'runs, one summary line each', positive('--runs'), 1)
  .option('--seed <s>', 'seed of the first run (the victim node, the factories of the finds)', positive('--seed'), Date.now() % 1_000_000)
  .option('--no-persist', 'redis-restart: Redis keeps nothing (no AOF), so the restart comes back empty')
  .option('--rate <r>', 'finds per second of the main load', positive('--rate'), 250)
  .option('--duration-ms <d>', 'how long the main load sends', positive('--duration-ms'), 25_000)
  .option('--settle-ms <s>', 'after the last find, how long tickets still open may take', positive('--settle-ms'), 20_000)
  .option('--call-deadline-ms <c>', 'a call must have its first answer within this', positive('--call-deadline-ms'), 10_000)
  .option('--capacity-after-requeue', 'failover: give the slots only once every ticket is queued again on the survivors (positions checked after the kill too), not at the kill')
  .option('--json', 'also print each run as a JSON line (with example violations)')
  .parse();

const scenario = program.args[0] as Scenario;
if (!SCENARIOS.includes(scenario)) program.error(`scenario must be one of ${SCENARIOS.join(', ')}`);
const o = program.opts<{ runs: number; seed: number; persist: boolean; rate: number; durationMs: number; settleMs: number; callDeadlineMs: number; capacityAfterRequeue?: boolean; json?: boolean }>();
if (!redisBinaryPresent()) program.error('redis-server is not installed (apt-get install redis-server)');

const entry = coordinatorEntry();
console.log(`chaos ${scenario}: ${o.runs} run(s), seed ${o.seed}, ${o.rate} finds/s for ${o.durationMs} ms, call deadline ${o.callDeadlineMs} ms; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (let run = 1; run <= o.runs; run++) {
  const result = await chaosRun(
    { scenario, noPersist: !o.persist, ratePerSecond: o.rate, durationMs: o.durationMs, settleMs: o.settleMs, callDeadlineMs: o.callDeadlineMs, failoverCapacity: o.capacityAfterRequeue ? 'after-requeue' : 'at-kill', entry },
    o.seed + run - 1,
    run,
    o.runs,
  );
  console.log(summaryLine(result.facts, result.summary));
  if (o.json) console.log(JSON.stringify(result));
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
