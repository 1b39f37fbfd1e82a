/**
 * RSS per waiting ticket, read from outside: the coordinator (`gamefactory start`) in its own
 * process, one game server with no free slot, and N one-player tickets from this process, either
 * over one batched FindGames stream or each on its own FindGame call. The figure is the growth of
 * the coordinator's VmRSS (from /proc) divided by N: everything the ticket costs (heap, grpc-js
 * call state, LMDB pages), as an operator would read it.
 *
 * `npx tsx perf/bench/waiting-memory.bench.ts N stream|own|floor [max-old-space-size MB]` measures one
 * case; `floor` is the transport's own share of `own`: a bare grpc-js server (transport-floor.bench.ts)
 * holding N server-streaming calls, each answered once, over the same 8 connections.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GameServer } from '@gamefactory/game-server-sdk';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';
import { coordinatorEntry, settleCollections, startServerChild } from './child-process.js';
import { holdOpen, startEchoChild } from './transport-floor.bench.js';
import { WAITING_CONFIG, waitOnOwnStreams, waitOverOneStream } from './waiting-load.js';

export type Shape = 'stream' | 'own' | 'floor';

export interface WaitingMemory {
  readonly tickets: number;
  readonly idleRssBytes: number;
  readonly rssBytes: number;
  readonly bytesPerTicket: number;
  /** The coordinator's CPU from before the first ticket until RSS is read, per ticket (GC included): what a heap setting costs. */
  readonly cpuMicrosPerTicket?: number;
  /**
   * The same read again SETTLED_S after the last ticket was answered, with nothing arriving: what an
   * operator sees once the burst is over (the start command's settle collection runs ~1.5 s after
   * the last arrival and, at 1M waiting tickets, pauses for seconds; see perf/PROFILE.md, "Ninth phase").
   */
  readonly settled?: { readonly rssBytes: number; readonly bytesPerTicket: number; readonly cpuMicrosPerTicket: number; readonly collections?: number; readonly pauseMs?: number };
}

/** Seconds after the burst at which the settled figure is read (BENCH_SETTLED_S to change it). */
export const SETTLED_S = Number(process.env.BENCH_SETTLED_S ?? 15);

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** BENCH_COORDINATOR_NODE_ARGS='--flag ...': V8/Node flags for the coordinator (heap settings an operator might choose). */
const nodeArgs = process.env.BENCH_COORDINATOR_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/** BENCH_HEAPSNAPSHOT_DIR=dir: the coordinator writes a heap snapshot there with the N tickets waiting (for perf/profile/heap-by-constructor.ts). */
const snapshotDir = process.env.BENCH_HEAPSNAPSHOT_DIR;

async function heapSnapshot(pid: number, dir: string): Promise<void> {
  const count = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot')).length;
  const before = count();
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 600 && count() === before; i++) await settle(500);
  await settle(10_000); // written synchronously by the coordinator; a few hundred MB take seconds
}

/** The bare grpc-js echo server's RSS growth per held stream: no server can hold a FindGame call for less. */
async function measureHeldStreams(calls: number): Promise<WaitingMemory> {
  const echo = await startEchoChild();
  const address = `127.0.0.1:${echo.port}`;
  try {
    (await holdOpen(address, 1000)).close(); // warm, as the coordinator is
    await settle(1000);
    const idleRssBytes = echo.rssBytes();
    const held = await holdOpen(address, calls);
    await settle(2000);
    const rssBytes = echo.rssBytes();
    held.close();
    return { tickets: calls, idleRssBytes, rssBytes, bytesPerTicket: (rssBytes - idleRssBytes) / calls };
  } finally {
    await echo.stop();
  }
}

/** One fresh coordinator, N waiting tickets of one shape, its RSS before and after. */
export async function measureWaiting(tickets: number, shape: Shape, maxOldSpaceMb: number, extraNodeArgs: readonly string[] = [], extraStartArgs: readonly string[] = []): Promise<WaitingMemory> {
  if (shape === 'floor') return measureHeldStreams(tickets);
  const entry = coordinatorEntry(); // builds first: a failed build leaves no directory behind
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-waiting-'));
  const configPath = join(dir, 'factories.yaml');
  writeFileSync(configPath, WAITING_CONFIG);
  let metricsPort: string | undefined;
  const coordinator = await startServerChild(
    [...entry, 'start', '--insecure', '--config', configPath, '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(dir, 'data'), '--log-level', 'info', ...extraStartArgs],
    (line) => {
      metricsPort ??= /"metrics":"127\.0\.0\.1:(\d+)"/.exec(line)?.[1];
      const match = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(line);
      return match ? Number(match[1]) : undefined;
    },
    [`--max-old-space-size=${maxOldSpaceMb}`, ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []), ...nodeArgs, ...extraNodeArgs],
  );
  const address = `127.0.0.1:${coordinator.port}`;
  // No free slot: every ticket's creation waits in line.
  const server = new GameServer({ addresses: address, serverId: 'full', endpoint: '127.0.0.1:7000', capacity: { maxGames: 0 }, createGame: () => {} });
  try {
    await server.start();
    if (process.env.BENCH_VERBOSE) console.error('server connected');
    // A few tickets first, so code paths, caches and the LMDB map are warm before the baseline.
    (await waitOverOneStream(address, 'warm', 1000)).close();
    await settle(1000);
    const idleRssBytes = coordinator.rssBytes();
    const status = () => readFileSync(`/proc/${coordinator.pid}/status`, 'utf8').split('\n').filter((l) => /^Rss/.test(l)).join(', ').replace(/\s+/g, ' ');
    // With BENCH_VERBOSE, V8's spaces beside /proc's split: committed (used) MB of the young generation, the old space and large objects.
    const spaces = async () => {
      if (!metricsPort) return '';
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const mb = (metric: string, space: string) => Math.round(Number(new RegExp(`^${metric}\\{space="${space}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 1e6);
      return ['new', 'old', 'large_object'].map((space) => `${space} ${mb('nodejs_heap_space_size_total_bytes', space)} (${mb('nodejs_heap_space_size_used_bytes', space)})`).join(', ');
    };
    const log = async (what: string) => process.env.BENCH_VERBOSE && console.error(`${new Date().toISOString()} ${what}: ${status()}; heap MB ${await spaces()}`);
    await log('idle');
    const cpuBefore = coordinator.cpuMicros();
    const waiting = shape === 'stream' ? await waitOverOneStream(address, 'bench', tickets) : await waitOnOwnStreams(address, 'bench', tickets);
    await settle(2000);
    const rssBytes = coordinator.rssBytes();
    const cpuMicrosPerTicket = (coordinator.cpuMicros() - cpuBefore) / tickets;
    await log(`${tickets} waiting`);
    for (let s = 1, watch = Number(process.env.BENCH_WATCH_S ?? 0); s <= watch; s++) {
      await settle(1000);
      await log(`+${2 + s} s`);
    }
    await settle(Math.max(0, SETTLED_S - 2 - Number(process.env.BENCH_WATCH_S ?? 0)) * 1000);
    const settledRss = coordinator.rssBytes();
    const settled = { rssBytes: settledRss, bytesPerTicket: (settledRss - idleRssBytes) / tickets, cpuMicrosPerTicket: (coordinator.cpuMicros() - cpuBefore) / tickets, ...(await settleCollections(metricsPort)) };
    await log(`${tickets} waiting, settled`);
    if (snapshotDir) await heapSnapshot(coordinator.pid, snapshotDir);
    waiting.close();
    return { tickets, idleRssBytes, rssBytes, bytesPerTicket: (rssBytes - idleRssBytes) / tickets, cpuMicrosPerTicket, settled };
  } finally {
    server.close();
    await coordinator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the coordinator needs to hold a million waiting tickets (the default heap limit is ~2 GB here). */
export const MAX_OLD_SPACE_MB = 4096;
const GOALS: Record<Exclude<Shape, 'floor'>, number> = { stream: 1200, own: 4000 };
/**
 * An operator's setting measured beside the default start command: V8 lets the old space grow to
 * up to 4× what the last mark-compact left (heap limit ≥ 2 GB), and a burst's garbage stays until
 * the next one; a fixed growth of 50 % keeps it near the live heap for more mark-compacts while
 * tickets arrive (perf/PROFILE.md, "Eighth phase"), where the start command's settle collection
 * compacts once they stop ("Ninth phase"). Measured with the settle collection off, CPU beside it.
 */
const BOUNDED_GROWTH = ['--heap-growing-percent=50'];
const CPU_GROUP = `coordinator CPU per waiting ticket, over one FindGames stream, from the first ticket to ${SETTLED_S} s after the last (µs)`;
const PAUSE_GROUP = 'settle collection: its pause once the tickets stopped arriving (ms)';
const GROUPS: Record<Exclude<Shape, 'floor'>, string> = {
  stream: 'coordinator RSS per waiting ticket, over one FindGames stream (bytes)',
  own: 'coordinator RSS per waiting ticket, each on its own FindGame stream (bytes)',
};

const suite: BenchSuite = {
  name: 'waiting-memory',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const sizes: Record<Exclude<Shape, 'floor'>, number[]> = options.quick ? { stream: [10_000], own: [2_000] } : { stream: [100_000, 1_000_000], own: [100_000] };
    for (const shape of ['stream', 'own'] as const) {
      for (const n of sizes[shape]) {
        const m = await measureWaiting(n, shape, MAX_OLD_SPACE_MB);
        const bytes = (w: WaitingMemory) => Math.round(w.settled?.bytesPerTicket ?? Number.NaN);
        const micros = (w: WaitingMemory) => Math.round((w.settled?.cpuMicrosPerTicket ?? Number.NaN) * 10) / 10;
        rows.push({ group: GROUPS[shape], subject: `gamefactory (the start command), ${SETTLED_S} s after the last ticket`, n, metric: 'bytes', value: bytes(m), higherIsBetter: false });
        rows.push({ group: GROUPS[shape], subject: 'gamefactory, 2 s after the last ticket', n, metric: 'bytes', value: Math.round(m.bytesPerTicket), higherIsBetter: false });
        rows.push({ group: GROUPS[shape], subject: 'goal', n, metric: 'bytes', value: GOALS[shape], higherIsBetter: false });
        rows.push({ group: GROUPS[shape], subject: 'coordinator RSS before the tickets (MB)', n, metric: 'bytes', value: Math.round(m.idleRssBytes / 1e6), higherIsBetter: false });
        if (m.settled?.pauseMs !== undefined) rows.push({ group: PAUSE_GROUP, subject: `${shape}, ${m.settled.collections} collection(s)`, n, metric: 'ms', value: m.settled.pauseMs, higherIsBetter: false });
        if (shape === 'stream') {
          const bounded = await measureWaiting(n, shape, MAX_OLD_SPACE_MB, BOUNDED_GROWTH, ['--settle-gc', 'off']);
          const boundedSubject = `gamefactory --settle-gc off, node ${BOUNDED_GROWTH.join(' ')}`;
          rows.push({ group: GROUPS[shape], subject: `${boundedSubject}, ${SETTLED_S} s after`, n, metric: 'bytes', value: bytes(bounded), higherIsBetter: false });
          rows.push({ group: CPU_GROUP, subject: 'gamefactory (the start command)', n, metric: 'µs', value: micros(m), higherIsBetter: false });
          rows.push({ group: CPU_GROUP, subject: boundedSubject, n, metric: 'µs', value: micros(bounded), higherIsBetter: false });
        }
        if (shape === 'own') {
          const floor = await measureWaiting(n, 'floor', MAX_OLD_SPACE_MB);
          rows.push({ group: GROUPS[shape], subject: 'grpc-js server holding as many answered streams (floor)', n, metric: 'bytes', value: Math.round(floor.bytesPerTicket), higherIsBetter: false });
        }
      }
    }
    return rows;
  },
};
export default suite;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [n = '100000', shape = 'stream', heap = String(MAX_OLD_SPACE_MB)] = process.argv.slice(2);
  const m = await measureWaiting(Number(n), shape as Shape, Number(heap));
  const { settled, ...at2s } = m;
  const micros = (us: number | undefined) => us && Math.round(us * 10) / 10;
  console.log(
    JSON.stringify({
      shape,
      ...at2s,
      bytesPerTicket: Math.round(m.bytesPerTicket),
      cpuMicrosPerTicket: micros(m.cpuMicrosPerTicket),
      ...(settled && { settledAfterS: SETTLED_S, settledRssBytes: settled.rssBytes, settledBytesPerTicket: Math.round(settled.bytesPerTicket), settledCpuMicrosPerTicket: micros(settled.cpuMicrosPerTicket), settleCollections: settled.collections, settlePauseMs: settled.pauseMs }),
    }),
  );
  process.exit(0);
}
