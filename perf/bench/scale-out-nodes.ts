/**
 * Processes of the scale-out bench: coordinator nodes (`gamefactory start`, with or without
 * `--redis`) with their CPU from /proc and their Redis meter (scale-out-meter.mjs), load
 * generators (scale-out-load.ts), and Redis processes' CPU from INFO.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { coordinatorEntry } from './child-process.js';
import type { LoadOutcome, LoadPlan } from './scale-out-load.js';

const METER = fileURLToPath(new URL('./scale-out-meter.mjs', import.meta.url));
const LOAD = fileURLToPath(new URL('./scale-out-load.ts', import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ
/** How nodes are started, built once per bench run. */
let entry: string[] | undefined;

/** User + system CPU seconds of a process so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export class BenchNode {
  private output = '';
  private stopping = false;
  private readonly exited: Promise<void>;
  port = 0;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => {
      if (!this.stopping) process.stderr.write(`a bench node exited (${code ?? signal}) before it was stopped:\n${this.output.slice(-6000)}\n`);
    });
    const collect = (chunk: Buffer) => (this.output += chunk.toString());
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
  }

  /** `redisUrl` undefined: the embedded coordinator (LMDB), the baseline. `env`: the mode flag of the nodes. */
  static async start(redisUrl: string | undefined, env: Record<string, string>): Promise<BenchNode> {
    const dir = mkdtempSync(join(tmpdir(), 'gf-scale-out-'));
    // SCALE_OUT_CPU_PROF=<dir>: each node writes a V8 CPU profile there when stopped (perf/profile/summarize-cpuprofile.ts).
    const profileDir = process.env.SCALE_OUT_CPU_PROF;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    // The compiled coordinator, as `npx gamefactory start` runs it (BENCH_COORDINATOR=tsx: from the
    // sources, whose transpiled closures each pay esbuild's __name; ~2.5% of a sharded node).
    entry ??= coordinatorEntry();
    const args = [...profile, ...entry, 'start', '--data', join(dir, 'data'), '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];
    if (redisUrl) args.push('--redis', redisUrl);
    const nodeOptions = [process.env.NODE_OPTIONS, `--import=${METER}`].filter(Boolean).join(' ');
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, NODE_OPTIONS: nodeOptions, GF_REDIS_METER_FILE: join(dir, 'meter.json'), GAMEFACTORY_LOG_FORMAT: 'json', GAMEFACTORY_LOG_LEVEL: 'info' },
    });
    const node = new BenchNode(child, dir);
    node.port = Number((await node.waitFor(/"grpc":"127\.0\.0\.1:(\d+)"/, 60_000))[1]);
    return node;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.output;
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  /** Read and write system calls so far, and the times the process slept (voluntary context switches, all threads of the main one's). */
  syscalls(): { reads: number; writes: number; sleeps: number } {
    const io = readFileSync(`/proc/${this.pid}/io`, 'utf8');
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const field = (text: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)![1]);
    return { reads: field(io, 'syscr'), writes: field(io, 'syscw'), sleeps: field(status, 'voluntary_ctxt_switches') };
  }

  /** Redis commands and round trips this node has sent so far. */
  redisCalls(): { commands: number; trips: number } {
    try {
      return JSON.parse(readFileSync(join(this.dir, 'meter.json'), 'utf8')) as { commands: number; trips: number };
    } catch {
      return { commands: 0, trips: 0 };
    }
  }

  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const check = () => {
        const match = pattern.exec(this.output);
        if (match) return resolve(match);
        if (this.child.exitCode !== null) return reject(new Error(`node exited:\n${this.output.slice(-3000)}`));
        if (Date.now() - started > timeoutMs) return reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${this.output.slice(-3000)}`));
        setTimeout(check, 50);
      };
      check();
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (process.env.SCALE_OUT_CPU_PROF) {
        // A profile is written only when the process exits by itself: a second SIGTERM exits at once.
        this.child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 100));
        this.child.kill('SIGTERM');
        const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
        await this.exited;
        clearTimeout(killer);
      } else this.child.kill('SIGKILL');
    }
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs one load generator process to the end. */
export function runLoadProcess(plan: LoadPlan): Promise<LoadOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD, JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let outcome: LoadOutcome | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) outcome = JSON.parse(line) as LoadOutcome;
    });
    child.once('exit', (code) => (outcome ? resolve(outcome) : reject(new Error(`load generator exited with ${code} and no report`))));
  });
}

/** What load processes' outcomes add up to; a ticket is doubled when it was answered twice or its player was seated twice, across all of them. */
export function tally(outcomes: readonly LoadOutcome[]): { sent: number; assigned: number; relayed: number; doubled: number; seats: Map<string, number> } {
  const sum = (of: (o: LoadOutcome) => number) => outcomes.reduce((n, o) => n + of(o), 0);
  const seats = new Map<string, number>();
  for (const o of outcomes) for (const player of o.seated) seats.set(player, (seats.get(player) ?? 0) + 1);
  const doubled = sum((o) => o.answeredTwice) + [...seats.values()].filter((k) => k > 1).length;
  return { sent: sum((o) => o.sent), assigned: sum((o) => o.assigned), relayed: sum((o) => o.relayed), doubled, seats };
}

/** CPU seconds (user + sys) of each Redis process, from INFO cpu. */
export async function redisCpuSeconds(ports: readonly number[]): Promise<number[]> {
  return Promise.all(
    ports.map(async (port) => {
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true });
      try {
        await client.connect();
        const info = await client.info('cpu');
        const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
        return field('used_cpu_user') + field('used_cpu_sys');
      } finally {
        client.disconnect();
      }
    }),
  );
}
