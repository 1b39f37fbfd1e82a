/** The chaos run's load generators and game servers, each a child process run through tsx. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoadPlan } from './load-plan.js';
import type { ServersPlan } from './servers-plan.js';

const LOAD = fileURLToPath(new URL('./load.ts', import.meta.url));
const SERVERS = fileURLToPath(new URL('./servers.ts', import.meta.url));

function tsx(script: string, plan: object): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(plan)], { stdio: ['pipe', 'pipe', 'inherit'] });
}

/** Runs a load generator to its end (it stops by itself; killed if it overstays `limitMs`). */
export function runLoad(plan: LoadPlan, limitMs: number): { pid: number; done: Promise<{ sent: number; settled: number }> } {
  const child = tsx(LOAD, plan);
  const done = new Promise<{ sent: number; settled: number }>((resolve, reject) => {
    let report: { sent: number; settled: number } | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) report = JSON.parse(line) as { sent: number; settled: number };
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      if (report) resolve(report);
      else reject(new Error(`load generator ${plan.prefix} exited (${code ?? signal}) without its report`));
    });
  });
  return { pid: child.pid!, done };
}

/** The game servers process, once every server has its welcome; `capacity` sets theirs, `stop` ends them. */
export interface GameServers {
  capacity(maxGames: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startServers(plan: ServersPlan): Promise<GameServers> {
  const child = tsx(SERVERS, plan);
  const lines: string[] = [];
  const waiting: { line: string; resolve: () => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const i = waiting.findIndex((w) => w.line === line);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve();
    else lines.push(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = (line: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the game servers did not say "${line}" within ${timeoutMs} ms`)), timeoutMs);
      waiting.push({ line, resolve: () => (clearTimeout(timer), resolve()) });
      void exited.then(() => reject(new Error('the game servers process exited')));
    });
  await next('ready', 30_000);
  return {
    async capacity(maxGames) {
      child.stdin!.write(`${JSON.stringify({ maxGames })}\n`);
      await next('capacity', 10_000);
    },
    async stop() {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
