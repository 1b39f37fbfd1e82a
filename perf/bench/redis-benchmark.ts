import { spawnSync } from 'node:child_process';

/** redis-benchmark's SET ops/s on a server: the yardstick a Redis-backed figure is read against. */
export function redisBenchmarkOps(port: number, clients: number, requests: number): number {
  const run = spawnSync('redis-benchmark', ['-p', String(port), '-c', String(clients), '-n', String(requests), '-t', 'set', '--csv'], {
    encoding: 'utf8',
  });
  const line = run.stdout.split('\n').find((l) => l.startsWith('"SET"'));
  if (run.status !== 0 || line === undefined) throw new Error(`redis-benchmark failed: ${run.stderr}`);
  return Number(JSON.parse(`[${line}]`)[1]);
}
