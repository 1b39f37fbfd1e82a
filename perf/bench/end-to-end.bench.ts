/**
 * FindGame end to end over gRPC on loopback, with the coordinator in its own process and the load
 * generator (its clients and fake game servers) in this one (issue 15), side by side in one run
 * with the transport's floors measured the same way (a bare grpc-js echo server in its own process).
 * Goals: FindGames tickets/s >= 0.65x the bidi echo's msgs/s and FindGame >= 0.7x the unary echo's
 * calls/s, each read as the median of interleaved rounds against its echo (end-to-end-paired.ts);
 * >= 10 million 4-player cooperative games per hour; coordinator RSS after 120k tickets <= 300 MB;
 * CPU µs per ticket beside the echo server's per message.
 *
 * What the ratios compare (perf/PROFILE.md, 2026-11-25): the echo answers a 64-byte message with
 * itself and does nothing else. A FindGame ticket is a 107-byte request answered by a ~160-byte
 * assignment, and on the server's side of the load generator it also costs a quarter of a
 * CreateGame and its GameCreated, a PlayerJoined report and a quarter of a GameEnded (coalesced
 * per tick on the game servers' streams); no LMDB write, since its game is confirmed within
 * placement.storeInFlightAfterMs (a ticket whose creation is not is written with where it went,
 * and removed when assigned). FindGame is a server-streaming call where the
 * echo is unary. The load generator (player clients and 20 fake game servers) runs on the same
 * cores as the coordinator, as the echo's client runs beside the echo server: its CPU per ticket
 * is printed beside the echo client's, since on a machine of two cores it bounds both rates.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { LoadReport } from '../../clients/loadgen/load-generator.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';
import { settleCollections } from './child-process.js';
import { startCoordinator, type LoadShape } from './end-to-end-coordinator.js';
import { pairedGoal, type RoundSizes } from './end-to-end-paired.js';
import { APART } from './transport-floor.bench.js';

const UNARY = 'end to end over gRPC: one call per ticket vs unary echo';
const STREAM = 'end to end over gRPC: one stream vs bidi stream echo';
const GAMES = 'cooperative 4-player games created, end to end';
const MEMORY = 'coordinator memory';
/** Answered tickets are kept 30 s for retries; RSS after this many through the load generator: at most 300 MB. */
const GOAL_TICKETS = 120_000;

interface Measured {
  readonly report: LoadReport;
  readonly cpuMicrosPerTicket: number;
  /** This process's CPU per ticket: the load generator's clients and fake servers. */
  readonly loadCpuMicrosPerTicket: number;
  readonly rssBytes: number;
  /** Right after start, before any ticket: the process's own floor (tsx, worker threads, LMDB maps). */
  readonly idleRssBytes: number;
  readonly ticketsSoFar: number;
  /** Read again `settleS` after the load, nothing arriving (the settle collection of the start command has run by then). */
  readonly settled?: { readonly rssBytes: number; readonly cpuMicrosPerTicket: number; readonly collections?: number; readonly pauseMs?: number };
}

/** Seconds after the load at which the settled RSS is read (BENCH_SETTLED_S to change it). */
const SETTLED_S = Number(process.env.BENCH_SETTLED_S ?? 15);

/** BENCH_HEAPSNAPSHOT_DIR=dir: the coordinator writes a heap snapshot there after the measured load (for perf/profile/heap-by-constructor.ts). */
const snapshotDir = process.env.BENCH_HEAPSNAPSHOT_DIR;
/** BENCH_COORDINATOR_NODE_ARGS='--flag ...': V8/Node flags for the coordinator process (to try heap settings). */
const nodeArgs = process.env.BENCH_COORDINATOR_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

async function heapSnapshot(pid: number, dir: string): Promise<void> {
  const count = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot')).length;
  const before = count();
  process.kill(pid, 'SIGUSR2');
  // Written synchronously by the child; a snapshot of a few hundred MB takes seconds.
  for (let i = 0; i < 600 && count() === before; i++) await new Promise((resolve) => setTimeout(resolve, 500));
  await new Promise((resolve) => setTimeout(resolve, 5000));
}

/** A fresh coordinator process (end-to-end-coordinator.ts); warms up, then measures. */
async function measure(how: LoadShape, tickets: number, warmup = Math.ceil(tickets / 10), settleS = 0): Promise<Measured> {
  const coordinator = await startCoordinator(how, [...(snapshotDir ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${snapshotDir}`] : []), ...nodeArgs]);
  const { child } = coordinator;
  const idleRssBytes = child.rssBytes();
  try {
    // Warm up (JIT, connections) untimed, as the echo floors do, then measure.
    await coordinator.load(`warmup-${how.mode}`, warmup);
    const cpuBefore = child.cpuMicros();
    const { report, cpuMicrosPerTicket, loadCpuMicrosPerTicket } = await coordinator.load(`bench-${how.mode}`, tickets);
    const rssBytes = child.rssBytes();
    if (process.env.BENCH_VERBOSE) {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').filter((l) => /^(Rss|VmHWM)/.test(l));
      console.error(`after the load: ${status.join(', ').replace(/\s+/g, ' ')}`);
      if (coordinator.metricsPort) {
        const text = await (await fetch(`http://127.0.0.1:${coordinator.metricsPort}/metrics`)).text();
        console.error(text.split('\n').filter((l) => /^nodejs_(heap|external)/.test(l)).join('\n'));
      }
    }
    let settled: Measured['settled'];
    if (settleS > 0) {
      await new Promise((resolve) => setTimeout(resolve, settleS * 1000));
      settled = { rssBytes: child.rssBytes(), cpuMicrosPerTicket: (child.cpuMicros() - cpuBefore) / Math.max(report.assigned, 1), ...(await settleCollections(coordinator.metricsPort)) };
    }
    if (snapshotDir) await heapSnapshot(child.pid, snapshotDir);
    return { report, cpuMicrosPerTicket, loadCpuMicrosPerTicket, rssBytes, idleRssBytes, ticketsSoFar: warmup + tickets, settled };
  } finally {
    await coordinator.stop();
  }
}

/** One call per ticket, as many in flight as the unary echo. */
const UNARY_SHAPE: LoadShape = { mode: 'unary', batch: true, concurrency: 64 };
/** Batched finds need a deeper window than the echo's 256 to fill a batch per tick (each batch carries up to 1024 finds). */
const BATCHED_SHAPE: LoadShape = { mode: 'stream', batch: true, concurrency: 2048 };

/**
 * The goals' rounds (end-to-end-paired.ts): END_TO_END_ROUNDS of them (5; quick, 1). A round's
 * load is 3k FindGame calls or 20k batched finds, and the echo's window about as long as that
 * load takes here (~2 s), so both sides of a round read the same stretch of the machine's load.
 * Both goals' rounds, warm-ups included, take ~55 s at this size (the suite 2–2.5 min). A fresh
 * coordinator's FindGame path takes ~6k calls to warm (its CPU a call fell 675 → 245 µs over the
 * first 6k, then held at 175–270).
 */
function roundSizes(quick: boolean): { unary: RoundSizes; batched: RoundSizes } {
  const rounds = Number(process.env.END_TO_END_ROUNDS ?? (quick ? 1 : 5));
  const echo = quick ? { warmupMs: 200, measureMs: 500 } : { warmupMs: 250, measureMs: 2000 };
  return quick
    ? { unary: { rounds, warm: 400, tickets: 400, echo }, batched: { rounds, warm: 1_000, tickets: 2_000, echo } }
    : { unary: { rounds, warm: 6_000, tickets: 3_000, echo }, batched: { rounds, warm: 20_000, tickets: 20_000, echo } };
}

const endToEnd: BenchSuite = {
  name: 'end-to-end',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const tickets = options.quick ? 10_000 : 100_000;
    // The RSS goal is read after 120k tickets: 20k of warm-up, then 100k measured.
    const warmup = options.quick ? 1_000 : GOAL_TICKETS - tickets;
    // Unary: the player's side is one call per ticket whatever `batch` says; the fake game servers
    // coalesce their reports as the SDK does by default (and as `gamefactory loadgen --mode unary`
    // runs them), so what this compares with the unary echo is the player's call shape.
    const unary = await measure(UNARY_SHAPE, Math.ceil(tickets / 5));
    const single = await measure({ mode: 'stream', batch: false, concurrency: 256 }, Math.ceil(tickets / 5));
    const batched = await measure(BATCHED_SHAPE, tickets, warmup, SETTLED_S);
    // The goals, each read against its echo in interleaved rounds; the floor rows are the rounds'
    // medians (the echo server in its own process, as the coordinator is).
    const sizes = roundSizes(options.quick);
    const unaryGoal = await pairedGoal({ group: UNARY, ours: { name: 'FindGame', rate: 'calls/s', shape: UNARY_SHAPE }, floor: { name: 'unary echo floor', rate: 'calls/s', call: 'unary' }, goal: 0.7 }, sizes.unary);
    const batchedGoal = await pairedGoal({ group: STREAM, ours: { name: 'FindGames batched', rate: 'tickets/s', shape: BATCHED_SHAPE }, floor: { name: 'bidi echo floor', rate: 'msgs/s', call: 'stream' }, goal: 0.65 }, sizes.batched);
    const rows: BenchRow[] = [];
    const add = (group: string, subject: string, metric: string, value: number, higherIsBetter: boolean) => rows.push({ group, subject, metric, value, higherIsBetter });
    const runs = [
      [UNARY, 'gamefactory FindGame', unary, 'unary echo', unaryGoal],
      [STREAM, 'gamefactory FindGames, batched', batched, 'bidi stream echo', batchedGoal],
      [STREAM, 'gamefactory FindGames, one find per message', single, 'bidi stream echo', undefined],
    ] as const;
    for (const [group, subject, m, echo, goal] of runs) {
      add(group, subject, 'per s', m.report.matchesPerSecond, true);
      add(group, subject, 'p99 ms', m.report.p99Ms, false);
      add(group, subject, 'server cpu µs per ticket or echo', m.cpuMicrosPerTicket, false);
      add(group, `${subject}: the load generator`, 'client cpu µs per ticket', m.loadCpuMicrosPerTicket, false);
      if (m.report.assigned < m.report.sent) throw new Error(`${group}: only ${m.report.assigned} of ${m.report.sent} assigned: ${JSON.stringify(m.report.errorsByCode)}`);
      if (goal === undefined) continue;
      add(group, `grpc-js ${echo} (floor, ${APART})`, 'per s', goal.floor.perSecond, true);
      add(group, `grpc-js ${echo} (floor, ${APART})`, 'p99 ms', goal.floor.p99Ms, false);
      add(group, `grpc-js ${echo} (floor, ${APART})`, 'server cpu µs per ticket or echo', goal.floor.serverCpuMicros, false);
      // The echo's client beside the load generator's: both share the machine's cores with the server under test.
      add(group, `grpc-js ${echo} (floor, ${APART}): its client`, 'client cpu µs per ticket', goal.floor.clientCpuMicros, false);
      rows.push(...goal.rows);
    }
    const gamesPerHour = (m: Measured) => (m.report.gamesEnded / m.report.elapsedMs) * 3_600_000;
    add(GAMES, 'gamefactory over FindGames, batched', 'games/hour', gamesPerHour(batched), true);
    add(GAMES, 'gamefactory over FindGames, one find per message', 'games/hour', gamesPerHour(single), true);
    add(GAMES, 'gamefactory over FindGame', 'games/hour', gamesPerHour(unary), true);
    add(GAMES, 'target (issue 15)', 'games/hour', 10_000_000, true);
    add(MEMORY, `coordinator RSS after ${batched.ticketsSoFar.toLocaleString('en')} tickets, as the last is answered`, 'MB', batched.rssBytes / 1e6, false);
    add(MEMORY, `coordinator RSS after ${batched.ticketsSoFar.toLocaleString('en')} tickets, ${SETTLED_S} s later`, 'MB', (batched.settled?.rssBytes ?? Number.NaN) / 1e6, false);
    add(MEMORY, 'coordinator RSS at start, no tickets', 'MB', batched.idleRssBytes / 1e6, false);
    add(MEMORY, `goal after ${GOAL_TICKETS.toLocaleString('en')} tickets`, 'MB', 300, false);
    return rows;
  },
};

export default endToEnd;

/**
 * The memory goal alone: `npx tsx perf/bench/end-to-end.bench.ts rss [checkout]` sends 120,000
 * tickets through the load generator (batched FindGames, 20k of warm-up then 100k) and prints the
 * coordinator's RSS after them. With a checkout (another worktree, after its `npm ci`) the
 * coordinator is that checkout's, the load generator this one's: before and after from one bench.
 */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === 'rss') {
  const checkout = process.argv[3];
  if (checkout) process.chdir(checkout);
  const m = await measure(BATCHED_SHAPE, 100_000, GOAL_TICKETS - 100_000, SETTLED_S);
  console.log(
    JSON.stringify({
      coordinator: checkout ?? '.',
      tickets: m.ticketsSoFar,
      rssMB: Math.round(m.rssBytes / 1e6),
      idleRssMB: Math.round(m.idleRssBytes / 1e6),
      perSecond: Math.round(m.report.matchesPerSecond),
      cpuMicrosPerTicket: Math.round(m.cpuMicrosPerTicket * 10) / 10,
      settledAfterS: SETTLED_S,
      settledRssMB: m.settled && Math.round(m.settled.rssBytes / 1e6),
      settledCpuMicrosPerTicket: m.settled && Math.round(m.settled.cpuMicrosPerTicket * 10) / 10,
      settleCollections: m.settled?.collections,
      settlePauseMs: m.settled?.pauseMs,
      assigned: m.report.assigned,
    }),
  );
  process.exit(0);
}
