/**
 * Start-up of the coordinator process: from spawn to its "listening" log line, and its resident
 * memory then, run from the TypeScript sources through tsx (how it ran before the compiled
 * distribution) and from the compiled JavaScript in dist/ (`npm start`, the `gamefactory` bin).
 * Needs `npm run build` first (npm install and `npm run bench` do it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchRow, BenchSuite } from './bench-suite.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START = ['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];
const HOW = {
  'from sources (tsx)': ['--import', 'tsx', 'src/cli/main.ts'],
  'compiled (dist/)': ['dist/src/cli/main.js'],
} as const;

interface Startup {
  readonly ms: number;
  readonly rssBytes: number;
}

/** One process: spawn, wait for "listening", read VmRSS, stop it. */
async function startOnce(args: readonly string[]): Promise<Startup> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-startup-'));
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...args, ...START, '--data', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.includes('gamefactory coordinator listening')) resolve(performance.now() - startedAt);
      });
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
    });
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return { ms, rssBytes: Number(rss?.[1]) * 1024 };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const suite: BenchSuite = {
  name: 'startup',
  async run({ quick }) {
    if (!existsSync(join(ROOT, 'dist/src/cli/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    const rows: BenchRow[] = [];
    const runs = quick ? 1 : 5;
    for (const [subject, args] of Object.entries(HOW)) {
      const measured: Startup[] = [];
      // Alternating would be fairer still; in sequence, the first run of each warms the disk cache.
      await startOnce(args);
      for (let i = 0; i < runs; i++) measured.push(await startOnce(args));
      rows.push({ group: 'coordinator start-up (to listening)', subject, metric: 'ms', value: median(measured.map((m) => m.ms)), higherIsBetter: false });
      rows.push({ group: 'coordinator start-up (to listening)', subject, metric: 'RSS MB', value: median(measured.map((m) => m.rssBytes)) / 2 ** 20, higherIsBetter: false });
    }
    return rows;
  },
};

export default suite;
