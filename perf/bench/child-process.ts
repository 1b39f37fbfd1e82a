/**
 * A server under measurement in its own process (issue 15: the load comes from another process),
 * with its CPU time and RSS read from /proc, so a figure is the server's cost alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
 * Runs `node [nodeArgs] --import tsx <args>` and waits for a stdout line that `portOf` finds a port in.
 * Linux only (/proc), as the bench machine is.
 */
export async function startServerChild(args: readonly string[], portOf: (line: string) => number | undefined, nodeArgs: readonly string[] = []): Promise<ServerChild> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
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
