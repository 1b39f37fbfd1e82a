/**
 * Competitive matcher benchmarks (issue 5):
 * 1. CPU time to form games from a pool of 10k and 100k waiting tickets, 1v1 and 5v5, against the
 *    floor of merely sorting the same scores (a batch cannot be cheaper than its sort), and the
 *    goal beside it (1v1 within 1.2× the floor, 5v5 within 2×). 5v5 is timed with the configured
 *    hill-climb budget (100 ms, spent unless the climb converges first) and without a climb.
 *    And the same batches solved on worker threads (SliceWorkerPool, default size) against in
 *    process: ms per batch, and the longest the event loop was blocked meanwhile (what gRPC calls
 *    wait for; on a 2-core machine the pool has one worker, so blocking is the figure that moves).
 * 2. A quality study on the simulator of issue 13 (src/simulation): skill gap in sigma and wait,
 *    for our matcher vs random pairing vs the bucket method of seeds/skill-bucket-design-doc.txt,
 *    all fed the same arrivals.
 */
import {
  CompetitiveMatcher,
  SliceWorkerPool,
  seededRandom,
  type CompetitiveConfig,
  type CompetitiveTicket,
  type ExpansionStep,
} from '../../src/competitive/index.js';
import { runCompetitive } from '../../src/simulation/competitive-run.js';
import { DEFAULT_ROUTE } from '../../src/simulation/latency-model.js';
import { widening as studyWidening } from '../../src/simulation/operating-points.js';
import { createPopulation } from '../../src/simulation/population.js';
import { GamefactoryQueue } from '../../src/simulation/queues/gamefactory-queue.js';
import { RandomPairingQueue } from '../../src/simulation/queues/random-pairing-queue.js';
import { SkillBucketQueue } from '../../src/simulation/queues/skill-bucket-queue.js';
import { parseScenario } from '../../src/simulation/scenario.js';
import { mean, quantile } from '../../src/simulation/statistics.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function soloTicket(id: string, score: number, enqueuedAt: number): CompetitiveTicket {
  return { ticketId: id, players: [{ playerId: id, score }], enqueuedAt, latencyMs: new Map(), preferredMaps: [], vetoedMaps: [] };
}

// ---------------------------------------------------------------------------------------------
// 1. Batch time

const widening: ExpansionStep[] = [
  { afterMs: 0, maxScoreGap: 0.1, maxLatencyMs: Infinity },
  { afterMs: 10_000, maxScoreGap: 0.3, maxLatencyMs: Infinity },
  { afterMs: 30_000, maxScoreGap: 1, maxLatencyMs: Infinity },
];

function batchConfig(teamSize: number): CompetitiveConfig {
  return {
    teams: 2,
    teamSize,
    batch: { maxTickets: 1_000, intervalMs: 1_000 },
    expansion: widening,
    hillClimbBudgetMs: 100,
    teamScore: 'mean',
    maps: [],
    regions: [],
  };
}

function timeBatch(
  teamSize: number,
  n: number,
  reps: number,
  hillClimbBudgetMs: number,
): { batchMs: number; sortMs: number; games: number } {
  const random = seededRandom(n + teamSize);
  const tickets = Array.from({ length: n }, (_, k) => soloTicket(`t${k}`, normal(random), -Math.floor(random() * 40_000)));
  const batchTimes: number[] = [];
  const sortTimes: number[] = [];
  // CPU time of this process (the machine is shared: a neighbour stretches wall time, not this).
  const cpuMs = (since: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let games = 0;
  // Two untimed rounds first: a batch's first runs are mostly the JIT compiling it (on threads
  // whose CPU time counts too) and the young generation growing to its working size.
  for (let rep = -WARM_UP_ROUNDS; rep < reps; rep++) {
    const config = { ...batchConfig(teamSize), hillClimbBudgetMs };
    const matcher = new CompetitiveMatcher(config, { now: () => performance.now(), random: seededRandom(rep) });
    for (const ticket of tickets) matcher.add(ticket);
    // The floor first, then the batch: each follows the same step in every build (the fill, then
    // the sort), so a batch that leaves less garbage behind does not also speed up its floor.
    const scores = tickets.map((t) => t.players[0]?.score ?? 0);
    const sortStart = process.cpuUsage();
    scores.sort((a, b) => a - b);
    const sortMs = cpuMs(sortStart);
    const start = process.cpuUsage();
    games = matcher.formGames(0).length;
    const batchMs = cpuMs(start);
    if (rep < 0) continue;
    sortTimes.push(sortMs);
    batchTimes.push(batchMs);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  return { batchMs: median(batchTimes), sortMs: median(sortTimes), games };
}

const WARM_UP_ROUNDS = 2;

/** Goals of the batch against its floor (the sort of the same scores). */
const GOAL = { '1v1': 1.2, '5v5': 2 } as const;

function batchRows(quick: boolean): BenchRow[] {
  const rows: BenchRow[] = [];
  const sizes = quick ? [1_000] : [10_000, 100_000];
  for (const [mode, teamSize] of [['1v1', 1], ['5v5', 5]] as const) {
    for (const n of sizes) {
      const reps = quick ? 1 : 7;
      const { batchMs, sortMs, games } = timeBatch(teamSize, n, reps, 100);
      const group = `competitive batch ${mode} (CPU ms per batch)`;
      const row = (subject: string, value: number): BenchRow => ({ group, subject, n, metric: 'CPU ms', value, higherIsBetter: false });
      rows.push(row('gamefactory', batchMs));
      if (teamSize > 1) rows.push(row('the same batch without hill-climb (budget 0)', timeBatch(teamSize, n, reps, 0).batchMs));
      rows.push(row('sort only (floor)', sortMs));
      rows.push(row(`goal: ${GOAL[mode]}× the floor`, GOAL[mode] * sortMs));
      rows.push({ group: `competitive batch ${mode} (games formed)`, subject: 'gamefactory', n, metric: 'games', value: games, higherIsBetter: true });
    }
  }
  return rows;
}

/**
 * Longest gap between turns of the event loop while `work` runs: a setImmediate chain notes when
 * it gets to run; a synchronous batch shows up as one gap as long as itself.
 */
async function longestStall(work: () => Promise<unknown>): Promise<{ ms: number; stallMs: number }> {
  let last = performance.now();
  let stall = 0;
  let running = true;
  const tick = (): void => {
    const t = performance.now();
    stall = Math.max(stall, t - last);
    last = t;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((resolve) => setImmediate(resolve));
  last = performance.now();
  const start = last;
  await work();
  const ms = performance.now() - start;
  tick();
  running = false;
  return { ms, stallMs: stall };
}

async function workerRows(quick: boolean): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const pool = new SliceWorkerPool();
  try {
    await pool.ready();
    const n = quick ? 10_000 : 100_000;
    for (const [mode, teamSize] of [['1v1', 1], ['5v5', 5]] as const) {
      const random = seededRandom(n + teamSize);
      const tickets = Array.from({ length: n }, (_, k) => soloTicket(`t${k}`, normal(random), -Math.floor(random() * 40_000)));
      const filled = (): CompetitiveMatcher => {
        const matcher = new CompetitiveMatcher(batchConfig(teamSize), { now: () => performance.now(), random: seededRandom(1) });
        for (const ticket of tickets) matcher.add(ticket);
        return matcher;
      };
      // Warm the worker's JIT as batchRows warmed this thread's.
      const warm = new CompetitiveMatcher(batchConfig(teamSize), { now: () => performance.now(), random: seededRandom(2) });
      for (const ticket of tickets.slice(0, 5_000)) warm.add(ticket);
      await warm.formGamesOn(0, pool);
      const group = `competitive batch ${mode} on workers (${pool.size} worker${pool.size === 1 ? '' : 's'})`;
      const inProcess = filled();
      const local = await longestStall(async () => inProcess.formGames(0));
      const onWorkers = filled();
      const remote = await longestStall(() => onWorkers.formGamesOn(0, pool));
      for (const [subject, r] of [['in process', local], ['worker threads', remote]] as const) {
        rows.push({ group, subject, n, metric: 'ms per batch', value: r.ms, higherIsBetter: false });
        rows.push({ group, subject, n, metric: 'longest event-loop block (ms)', value: r.stallMs, higherIsBetter: false });
      }
    }
  } finally {
    await pool.close();
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 2. Quality study: the simulator of issue 13 (src/simulation), one short run per method on the
// same arrivals; `npm run simulate` is the full study with charts.

const QUALITY_SCENARIO = `
seed: 2014
factory: duel
population:
  players: 20000
  skill: { mean: 0, sd: 1 }
  performanceSd: 0.75
  regions: [{ name: here, weight: 1, latitude: 0, longitude: 0 }]
arrivals: { perSecond: 10 }
sessions: { gamesMean: 5, gameSeconds: 300 }
durationHours: 1
`;

function qualityRows(quick: boolean): BenchRow[] {
  const scenario = parseScenario(QUALITY_SCENARIO);
  const durationMs = quick ? 120_000 : 1_200_000;
  const perSecond = scenario.arrivals.perSecond;
  const population = createPopulation(scenario, 1);
  const locality = { ...DEFAULT_ROUTE, regionLocations: new Map([['here', { latitude: 0, longitude: 0 }]]) };
  const factory = {
    teams: 2,
    teamSize: 1,
    batch: { maxTickets: 10_000, intervalMs: 250 },
    expansion: studyWidening(0.05, 1),
    hillClimbBudgetMs: 0,
    teamScore: 'mean',
    maps: [],
    regions: [],
  } as const;
  const group = `competitive 1v1 quality (${perSecond} players/s, ${durationMs / 60_000} min simulated)`;
  const rows: BenchRow[] = [];
  for (const queue of [
    new GamefactoryQueue(factory, 1),
    new SkillBucketQueue({ bucketWidth: 0.125, rangeStepMs: 5_000, rangeMax: 10 }),
    new RandomPairingQueue(),
  ]) {
    const log = runCompetitive({ scenario, population, queue, perSecond, durationMs, teams: 2, teamSize: 1, locality });
    const row = (metric: string, value: number): BenchRow => ({ group, subject: queue.name, metric, value, higherIsBetter: false });
    rows.push(
      row('mean gap (sigma)', mean(log.gapsSigma)),
      row('p99 gap (sigma)', quantile(log.gapsSigma, 0.99)),
      row('mean wait (s)', mean(log.waitsMs) / 1000),
      row('p99 wait (s)', quantile(log.waitsMs, 0.99) / 1000),
      row('unmatched at end', log.unmatched),
    );
  }
  return rows;
}

const suite: BenchSuite = {
  name: 'competitive',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    // The timed batches first, in a process that has run nothing else: the quality study leaves
    // a large heap and its garbage behind, whose collections then land in the timed batches.
    const batches = batchRows(options.quick);
    const workers = await workerRows(options.quick);
    return [...qualityRows(options.quick), ...batches, ...workers];
  },
};

export default suite;
