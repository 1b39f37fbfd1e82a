/**
 * Competitive matcher benchmarks (issue 5):
 * 1. Time to form games from a pool of 10k and 100k waiting tickets, 1v1 and 5v5, against the
 *    floor of merely sorting the same scores (a batch cannot be cheaper than its sort).
 *    And the same batches solved on worker threads (SliceWorkerPool, default size) against in
 *    process: ms per batch, and the longest the event loop was blocked meanwhile (what gRPC calls
 *    wait for; on a 2-core machine the pool has one worker, so blocking is the figure that moves).
 * 2. A quality study over one simulated run (steady arrivals, normally distributed skill,
 *    simulated clock): skill gap in sigma and wait, for our matcher vs random pairing vs the
 *    bucket method of seeds/skill-bucket-design-doc.txt, all fed the same arrivals.
 */
import {
  CompetitiveMatcher,
  SliceWorkerPool,
  seededRandom,
  type CompetitiveConfig,
  type CompetitiveTicket,
  type ExpansionStep,
} from '../../src/competitive/index.js';
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

function timeBatch(teamSize: number, n: number, reps: number): { batchMs: number; sortMs: number; games: number } {
  const random = seededRandom(n + teamSize);
  const tickets = Array.from({ length: n }, (_, k) => soloTicket(`t${k}`, normal(random), -Math.floor(random() * 40_000)));
  const batchTimes: number[] = [];
  const sortTimes: number[] = [];
  let games = 0;
  for (let rep = 0; rep < reps; rep++) {
    const matcher = new CompetitiveMatcher(batchConfig(teamSize), { now: () => performance.now(), random: seededRandom(rep) });
    for (const ticket of tickets) matcher.add(ticket);
    const start = performance.now();
    games = matcher.formGames(0).length;
    batchTimes.push(performance.now() - start);
    const scores = tickets.map((t) => t.players[0]?.score ?? 0);
    const sortStart = performance.now();
    scores.sort((a, b) => a - b);
    sortTimes.push(performance.now() - sortStart);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  return { batchMs: median(batchTimes), sortMs: median(sortTimes), games };
}

function batchRows(quick: boolean): BenchRow[] {
  const rows: BenchRow[] = [];
  const sizes = quick ? [1_000] : [10_000, 100_000];
  for (const [mode, teamSize] of [['1v1', 1], ['5v5', 5]] as const) {
    for (const n of sizes) {
      const { batchMs, sortMs, games } = timeBatch(teamSize, n, n >= 100_000 ? 1 : 3);
      const group = `competitive batch ${mode} (ms per batch)`;
      rows.push({ group, subject: 'gamefactory', n, metric: 'ms', value: batchMs, higherIsBetter: false });
      rows.push({ group, subject: 'sort only (floor)', n, metric: 'ms', value: sortMs, higherIsBetter: false });
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
// 2. Quality study: one simulated run, the same arrivals for every method

interface Arrival {
  readonly id: string;
  readonly score: number;
  readonly at: number;
}

interface MatchLog {
  readonly gaps: number[];
  readonly waits: number[];
  unmatched: number;
}

/** What every method sees: arrivals, then a check every CHECK_MS of simulated time. */
interface SimulatedQueue {
  arrive(arrival: Arrival): void;
  check(now: number, log: MatchLog): void;
  readonly waiting: number;
}

const CHECK_MS = 250; // the bucket design's suggested check rate
const BUCKET_WIDTH = 0.1; // in sigma (scores are N(0, 1))
const RANGE_STEP_MS = 5_000; // "range increase rate": one bucket every 5 s
const RANGE_MAX = 10; // "range maximum", in buckets

/**
 * The buckets' relaxation pace as expansion steps: 0.1 sigma more every 5 s, capped after 50 s.
 * The first window, 0.07 sigma, is our one tuning choice: it sits between the bucket method's
 * typical and worst same-bucket gap (0.033 and 0.1 sigma). Wider first windows trade gap for wait
 * (0.1 sigma: mean gap 0.05, mean wait 1.4 s), narrower ones the reverse.
 */
const STUDY_FIRST_WINDOW = 0.07;
const studyExpansion: ExpansionStep[] = Array.from({ length: RANGE_MAX + 1 }, (_, k) => ({
  afterMs: k * RANGE_STEP_MS,
  maxScoreGap: STUDY_FIRST_WINDOW + k * BUCKET_WIDTH,
  maxLatencyMs: Infinity,
}));

class GamefactoryQueue implements SimulatedQueue {
  private readonly matcher = new CompetitiveMatcher(
    {
      teams: 2,
      teamSize: 1,
      batch: { maxTickets: 10_000, intervalMs: CHECK_MS },
      expansion: studyExpansion,
      hillClimbBudgetMs: 0,
      teamScore: 'mean',
      maps: [],
      regions: [],
    },
    { now: () => 0, random: seededRandom(1) },
  );
  private readonly scores = new Map<string, number>();
  arrive(a: Arrival): void {
    this.scores.set(a.id, a.score);
    this.matcher.add(soloTicket(a.id, a.score, a.at));
  }
  check(now: number, log: MatchLog): void {
    const due = this.matcher.nextBatchAt();
    if (due === undefined || due > now) return;
    for (const game of this.matcher.formGames(now)) {
      const [a, b] = game.teams.flat().map((id) => this.scores.get(id) ?? NaN);
      log.gaps.push(Math.abs((a ?? NaN) - (b ?? NaN)));
      log.waits.push(...game.quality.waitsMs);
    }
  }
  get waiting(): number {
    return this.matcher.size;
  }
}

/** Pairs whoever has waited longest, with no regard to skill: the floor for wait. */
class RandomPairingQueue implements SimulatedQueue {
  private queue: Arrival[] = [];
  arrive(a: Arrival): void {
    this.queue.push(a);
  }
  check(now: number, log: MatchLog): void {
    for (let i = 0; i + 1 < this.queue.length; i += 2) {
      const a = this.queue[i] as Arrival;
      const b = this.queue[i + 1] as Arrival;
      log.gaps.push(Math.abs(a.score - b.score));
      log.waits.push(now - a.at, now - b.at);
    }
    this.queue = this.queue.length % 2 === 1 ? this.queue.slice(-1) : [];
  }
  get waiting(): number {
    return this.queue.length;
  }
}

/**
 * seeds/skill-bucket-design-doc.txt: bucket = round(score / width); each check, every player in
 * arrival order looks at buckets ever further from its own, up to its range (one more bucket
 * every RANGE_STEP_MS, capped at RANGE_MAX), and takes the first player found whose own range
 * reaches back (100% reciprocal).
 */
class SkillBucketQueue implements SimulatedQueue {
  private readonly buckets = new Map<number, Arrival[]>();
  private readonly bucketOf = (score: number): number => Math.round(score / BUCKET_WIDTH);
  private readonly rangeOf = (a: Arrival, now: number): number => Math.min(RANGE_MAX, Math.floor((now - a.at) / RANGE_STEP_MS));
  private players: Arrival[] = [];
  arrive(a: Arrival): void {
    this.players.push(a);
    const b = this.bucketOf(a.score);
    const list = this.buckets.get(b);
    if (list) list.push(a);
    else this.buckets.set(b, [a]);
  }
  check(now: number, log: MatchLog): void {
    const matched = new Set<string>();
    for (const player of this.players) {
      if (matched.has(player.id)) continue;
      const home = this.bucketOf(player.score);
      const range = this.rangeOf(player, now);
      let found: Arrival | undefined;
      for (let d = 0; d <= range && found === undefined; d++) {
        for (const bucket of d === 0 ? [home] : [home - d, home + d]) {
          found = this.buckets.get(bucket)?.find(
            (other) => other.id !== player.id && !matched.has(other.id) && this.rangeOf(other, now) >= d,
          );
          if (found) break;
        }
      }
      if (found === undefined) continue;
      matched.add(player.id).add(found.id);
      log.gaps.push(Math.abs(player.score - found.score));
      log.waits.push(now - player.at, now - found.at);
    }
    if (matched.size === 0) return;
    this.players = this.players.filter((p) => !matched.has(p.id));
    for (const [b, list] of this.buckets) {
      const kept = list.filter((p) => !matched.has(p.id));
      if (kept.length === 0) this.buckets.delete(b);
      else this.buckets.set(b, kept);
    }
  }
  get waiting(): number {
    return this.players.length;
  }
}

function arrivals(perSecond: number, durationMs: number, seed: number): Arrival[] {
  const random = seededRandom(seed);
  const list: Arrival[] = [];
  for (let t = 0, k = 0; ; k++) {
    t += (-Math.log(1 - random()) / perSecond) * 1000; // Poisson arrivals
    if (t >= durationMs) return list;
    list.push({ id: `p${k}`, score: normal(random), at: t });
  }
}

function simulate(queue: SimulatedQueue, stream: readonly Arrival[], durationMs: number): MatchLog {
  const log: MatchLog = { gaps: [], waits: [], unmatched: 0 };
  let next = 0;
  for (let now = CHECK_MS; now <= durationMs; now += CHECK_MS) {
    while (next < stream.length && (stream[next] as Arrival).at <= now) queue.arrive(stream[next++] as Arrival);
    queue.check(now, log);
  }
  log.unmatched = queue.waiting;
  return log;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
}

function p99(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? NaN;
}

function qualityRows(quick: boolean): BenchRow[] {
  const durationMs = quick ? 120_000 : 1_200_000;
  const perSecond = 10;
  const stream = arrivals(perSecond, durationMs, 2014);
  const group = `competitive 1v1 quality (${perSecond} players/s, ${durationMs / 60_000} min simulated)`;
  const rows: BenchRow[] = [];
  for (const [subject, queue] of [
    ['gamefactory', new GamefactoryQueue()],
    ['skill buckets', new SkillBucketQueue()],
    ['random pairing', new RandomPairingQueue()],
  ] as const) {
    const log = simulate(queue, stream, durationMs);
    const row = (metric: string, value: number): BenchRow => ({ group, subject, metric, value, higherIsBetter: false });
    rows.push(
      row('mean gap (sigma)', mean(log.gaps)),
      row('p99 gap (sigma)', p99(log.gaps)),
      row('mean wait (s)', mean(log.waits) / 1000),
      row('p99 wait (s)', p99(log.waits) / 1000),
      row('unmatched at end', log.unmatched),
    );
  }
  return rows;
}

const suite: BenchSuite = {
  name: 'competitive',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    return [...qualityRows(options.quick), ...batchRows(options.quick), ...(await workerRows(options.quick))];
  },
};

export default suite;
