/**
 * CPU per ticket of a checkout's compiled coordinator and load generator, each measured alone:
 *
 *   node perf/compare/ticket-cpu.mjs CHECKOUT [stream|unary] [tickets] [in flight] [coordinator node flags...]
 *
 * Starts CHECKOUT's `dist/src/cli/main.js start` in its own process (factories.yaml, LMDB in a
 * temporary directory) and runs CHECKOUT's compiled load generator (20 fake servers, batched,
 * 4-player cooperative games) in this one: a fifth of the tickets to warm up, then the measured
 * ones. Prints one JSON line: tickets/s; the coordinator's CPU µs a ticket from /proc (all
 * threads, its main thread, the others: V8's GC helpers and libuv's pool, where LMDB commits) and
 * per thread id; the load generator's from process.cpuUsage(); p50 ms to assignment; the load
 * average at the start; and the measured window on the monotonic clock (µs, for
 * PROFILE_FROM_US / PROFILE_TO_US of summarize-cpuprofile.ts when a flag is `--cpu-prof`).
 * Build both checkouts first (`npm run build`); run two checkouts alternately to compare them
 * on a shared machine, and read CPU per ticket rather than rates.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [checkoutArg = '.', mode = 'stream', ticketsArg = '100000', inFlightArg = mode === 'unary' ? '64' : '2048', ...nodeArgs] = process.argv.slice(2);
const checkout = resolve(checkoutArg);
const tickets = Number(ticketsArg);
const concurrency = Number(inFlightArg);
const data = mkdtempSync(join(tmpdir(), 'ticket-cpu-'));
const child = spawn(process.execPath, [...nodeArgs, 'dist/src/cli/main.js', 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', data, '--log-level', 'info'], {
  cwd: checkout,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((found, failed) => {
  createInterface({ input: child.stdout }).on('line', (line) => {
    const match = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(line);
    if (match) found(Number(match[1]));
  });
  child.once('exit', (code) => failed(new Error(`the coordinator exited (${code}) before listening`)));
});

/** Clock ticks (10 ms) of user + system time of each of the coordinator's threads. */
function threads() {
  const ticks = {};
  for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks[tid] = Number(fields[11]) + Number(fields[12]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ticks;
}

const { runLoad } = await import(pathToFileURL(join(checkout, 'dist/clients/loadgen/load-generator.js')).href);
const load = (runId, count) =>
  runLoad({
    address: `127.0.0.1:${port}`,
    servers: 20,
    maxGamesPerServer: 10_000,
    playersPerGame: 4,
    tickets: count,
    rate: 0,
    concurrency,
    mode,
    batch: true,
    template: 'diablo',
    partition: { difficulty: 'hard', hardcore: false, version: 'v201' },
    runId,
  });
await load('warmup', Math.ceil(tickets / 5));
const loadAverage = loadavg()[0];
const before = threads();
const cpuBefore = process.cpuUsage();
const from = process.hrtime.bigint() / 1000n;
const report = await load('measured', tickets);
const to = process.hrtime.bigint() / 1000n;
const cpu = process.cpuUsage(cpuBefore);
const after = threads();
const perTicket = (clockTicks) => Math.round((clockTicks * 10_000 * 10) / report.assigned) / 10;
let main = 0;
let others = 0;
const byThread = {};
for (const [tid, ticks] of Object.entries(after)) {
  const used = ticks - (before[tid] ?? 0);
  if (Number(tid) === child.pid) main += used;
  else others += used;
  if (used > 0) byThread[tid] = perTicket(used);
}
console.log(
  JSON.stringify({
    checkout,
    mode,
    perSecond: Math.round(report.matchesPerSecond),
    coordinatorCpuMicros: perTicket(main + others),
    mainThread: perTicket(main),
    otherThreads: perTicket(others),
    loadGeneratorCpuMicros: Math.round(((cpu.user + cpu.system) / report.assigned) * 10) / 10,
    p50Ms: Math.round(report.p50Ms),
    loadAverage: Math.round(loadAverage * 10) / 10,
    assigned: report.assigned,
    threads: byThread,
    windowUs: [String(from), String(to)],
  }),
);
child.kill('SIGINT');
await new Promise((done) => child.once('exit', done));
rmSync(data, { recursive: true, force: true });
process.exit(report.assigned < tickets ? 1 : 0);
