/**
 * A server under measurement in its own process (issue 15: the load comes from another process),
 * with its CPU time and RSS read from /proc, so a figure is the server's cost alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ServerChild {
  readonly port: number;
  readonly pid: number;
  /** User + system CPU time of the child so far, in µs. */
  cpuMicros(): number;
  /** Resident set size of the child now, in bytes. */
  rssBytes(): number;
  stop(): Promise<void>;
}

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ

/**
 * How the coordinator runs under measurement. `dist` (the default): the compiled distribution, as
 * `npm start` and the packed bin run it (built first; cheap when nothing changed). `tsx`: the
 * sources through tsx, whose esbuild transform keeps function names by redefining `name` on every
 * closure it creates, which leaves each one with a ~256-byte property dictionary and costs a
 * defineProperty per closure: figures under tsx overstate the shipped process's memory and CPU.
 * BENCH_COORDINATOR=tsx picks the sources, e.g. to profile a change before building it. Paths
 * are the current directory's (the repository root, or the checkout a bench compares against).
 */
export function coordinatorEntry(): string[] {
  if (process.env.BENCH_COORDINATOR === 'tsx') return ['--import', 'tsx', 'src/cli/main.ts'];
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error(`npm run build failed (${built.status}): the bench measures the compiled coordinator`);
  return ['dist/src/cli/main.js'];
}

/**
 * Runs `node [nodeArgs] --import tsx <args>` (or `node [nodeArgs] <args>` when `args` starts with
 * node's own flags or a compiled .js entry, see coordinatorEntry) and waits for a stdout line that `portOf` finds a port in.
 * Linux only (/proc), as the bench machine is.
 */
export async function startServerChild(args: readonly string[], portOf: (line: string) => number | undefined, nodeArgs: readonly string[] = []): Promise<ServerChild> {
  const direct = args[0] === '--import' || args[0]?.endsWith('.js');
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...(direct ? [] : ['--import', 'tsx']), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      // BENCH_ECHO_STDOUT=1: the child's stdout on ours (e.g. `--trace-gc` in BENCH_COORDINATOR_NODE_ARGS).
      if (process.env.BENCH_ECHO_STDOUT) process.stderr.write(`${line}\n`);
      const found = portOf(line);
      if (found !== undefined) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
  });
  const pid = child.pid!;
  return {
    port,
    pid,
    cpuMicros() {
      // Fields after the command name: utime is the 12th, stime the 13th (0-based from state).
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1e6;
    },
    rssBytes() {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Number(match?.[1] ?? Number.NaN) * 1024;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The start command's settle collections so far, from /metrics: how many, and their pauses in all (absent in builds without them). */
export async function settleCollections(metricsPort: string | undefined): Promise<{ collections?: number; pauseMs?: number }> {
  if (!metricsPort) return {};
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const read = (name: string) => /^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2];
  const count = read('gamefactory_settle_collection_pause_seconds_count');
  const sum = read('gamefactory_settle_collection_pause_seconds_sum');
  return count === undefined ? {} : { collections: Number(count), pauseMs: Math.round(Number(sum) * 1000) };
}
