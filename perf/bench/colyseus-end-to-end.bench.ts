/**
 * Players placed per second through each system's real front door, every side in its own process
 * on this machine, over loopback (issue 15, "A peer end to end"):
 *  - gamefactory: the coordinator (`gamefactory start`) and the load generator (`gamefactory
 *    loadgen`: fake game servers over GameServerLink, players over one FindGames stream), two
 *    processes;
 *  - Colyseus 0.16: a `Server` with its default in-process driver and the WebSocket transport
 *    (colyseus/server.ts), and its own client SDK, colyseus.js 0.16 (colyseus/client.ts), whose
 *    `joinOrCreate` asks the HTTP matchmaker for a seat reservation and then joins over WebSocket.
 * Both fill 4-player rooms and end a room once full, with IN_FLIGHT players waiting at a time.
 * Each side is warmed up (JIT, connections) with a tenth of the run untimed, as the in-process end-to-end suite does. Every child process
 * is killed after CHILD_TIMEOUT_MS at the latest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

const GROUP = 'players placed per second, end to end, separate processes (4-player rooms)';
const CHILD_TIMEOUT_MS = 180_000;
/** Players in flight on either side: the same for both (Colyseus placed 440/s at 16, 610/s at 64, 1,100/s at 512). */
const IN_FLIGHT = 512;
const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'src/cli/main.ts');
const colyseusServer = fileURLToPath(new URL('colyseus/server.ts', import.meta.url));
const colyseusClient = fileURLToPath(new URL('colyseus/client.ts', import.meta.url));

interface Placed {
  readonly perSecond: number;
  readonly p99Ms: number;
}

/** A TypeScript entry point in a child node process (through tsx), killed after the timeout. */
function launch(script: string, args: readonly string[]): { child: ChildProcess; output: () => string; exited: Promise<number> } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    }),
  );
  return { child, output: () => output, exited };
}

/** Runs a child to its end; its output, or an error with the output when it failed. */
async function runToEnd(script: string, args: readonly string[]): Promise<string> {
  const run = launch(script, args);
  const code = await run.exited;
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited ${code}:\n${run.output().slice(-2_000)}`);
  return run.output();
}

/** Waits until a child prints a line matching `pattern` (or fails, or the timeout passes). */
async function waitFor(run: ReturnType<typeof launch>, pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = run.output().match(pattern);
    if (match !== null) return match;
    if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start:\n${run.output().slice(-2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function stop(run: ReturnType<typeof launch>): Promise<void> {
  if (run.child.exitCode === null) run.child.kill('SIGTERM');
  const killer = setTimeout(() => run.child.kill('SIGKILL'), 10_000);
  await run.exited;
  clearTimeout(killer);
}

async function gamefactory(players: number): Promise<Placed> {
  const port = await freePort();
  // No dot in the directory name: lmdb reads a path with an extension as a file, not a directory.
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-peer-bench-'));
  const coordinator = launch(cli, ['start', '--listen', `127.0.0.1:${port}`, '--metrics-listen', '127.0.0.1:0', '--data', dataDir, '--log-level', 'info']);
  try {
    await waitFor(coordinator, /listening|grpc/i, 'the coordinator');
    const load = (count: number) =>
      runToEnd(cli, ['loadgen', '--coordinator', `127.0.0.1:${port}`, '--servers', '8', '--max-games', '10000', '--tickets', String(count), '--concurrency', String(IN_FLIGHT), '--mode', 'stream']);
    await load(Math.ceil(players / 10));
    const output = await load(players);
    const perSecond = Number(output.match(/matches\/s: ([\d.]+)/)?.[1]);
    const p99Ms = Number(output.match(/p99 ([\d.]+) ms/)?.[1]);
    if (!(perSecond > 0) || !/errors: none/.test(output)) throw new Error(`loadgen did not place every player:\n${output.slice(-2_000)}`);
    return { perSecond, p99Ms };
  } finally {
    await stop(coordinator);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function colyseus(players: number): Promise<Placed> {
  const server = launch(colyseusServer, ['0']);
  try {
    const port = (await waitFor(server, /listening (\d+)/, 'the Colyseus server'))[1] as string;
    const join = async (count: number) => {
      const output = await runToEnd(colyseusClient, [port, String(count), String(IN_FLIGHT)]);
      const line = output.trim().split('\n').pop() ?? '';
      const report = JSON.parse(line) as { placed: number; perSecond: number; p99Ms: number; errors: number };
      if (report.errors > 0 || report.placed < count) throw new Error(`colyseus.js placed ${report.placed} of ${count}: ${line}`);
      return report;
    };
    await join(Math.ceil(players / 10));
    const report = await join(players);
    return { perSecond: report.perSecond, p99Ms: report.p99Ms };
  } finally {
    await stop(server);
  }
}

const suite: BenchSuite = {
  name: 'colyseus-end-to-end',
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const ours = await gamefactory(quick ? 2_000 : 20_000);
    const peer = await colyseus(quick ? 400 : 4_000);
    const rows: BenchRow[] = [];
    for (const [subject, placed] of [
      ['gamefactory: coordinator + loadgen (FindGames)', ours],
      ['colyseus 0.16: server + colyseus.js joinOrCreate', peer],
    ] as const) {
      rows.push({ group: GROUP, subject, metric: 'players/s', value: placed.perSecond, higherIsBetter: true });
      rows.push({ group: GROUP, subject, metric: '4-player games/hour', value: (placed.perSecond / 4) * 3_600, higherIsBetter: true });
      rows.push({ group: GROUP, subject, metric: 'p99 ms', value: placed.p99Ms, higherIsBetter: false });
    }
    return rows;
  },
};

export default suite;
