import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAITING_CONFIG } from '../../perf/bench/waiting-load.js';
import { until } from '../support/until.js';
import { spawnCli } from './cli-process.js';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly afterMs: number;
}

/** A `gamefactory start --redis` process, its output, and its exit timed from a moment the test picks. */
function startNode(redisUrl: string, dir: string, mode: 'sharded' | 'relay', extra: readonly string[] = []) {
  writeFileSync(join(dir, 'factories.yaml'), WAITING_CONFIG);
  const child = spawnCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--config', join(dir, 'factories.yaml'),
    '--data', join(dir, 'data'), '--redis', redisUrl, '--cluster-mode', mode, ...extra]);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let from = 0;
  const exit = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, afterMs: Date.now() - from })));
  return {
    child,
    output: () => output,
    /** SIGTERM now; the exit's `afterMs` counts from here. */
    terminate: () => {
      from = Date.now();
      child.kill('SIGTERM');
    },
    /** Started (the "listening" line) and holding a lease (of a shard, or the matcher): its stop has leases to release. */
    started: () => until(() => output.includes('"grpc":') && output.includes('this node now runs the matcher'), 20_000, 'started, with a lease held'),
    /** Its start under way: written by the start command after the coordinator's modules loaded, just before it opens anything. */
    starting: () => until(() => output.includes('INSECURE development mode'), 20_000, 'the start under way'),
    /** The exit, or undefined if none within `ms` (the process is then still running). */
    exitWithin: (ms: number) => Promise.race([exit, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]),
  };
}

/**
 * What an operator (or a supervisor) expects of `kill -TERM` on a cluster node: a prompt exit that
 * it chose itself (a code, not death by the signal), whatever state the node or its Redis is in.
 */
describe.each(['sharded', 'relay'] as const)('SIGTERM to a cluster node (--cluster-mode %s)', (mode) => {
  let redis: RedisServer | undefined;
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  beforeEach(async (ctx) => {
    if (!redisBinaryPresent()) {
      if (process.env.CI === 'true') throw new Error('redis-server is not installed');
      return ctx.skip('redis-server is not installed');
    }
    redis = await RedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'gamefactory-node-stop-'));
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    child = undefined;
    await redis?.stop();
    redis = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('with its Redis answering, exits 0 promptly and warns of nothing', async () => {
    const node = startNode(redis!.url, dir!, mode);
    child = node.child;
    await node.started();
    node.terminate();
    const exit = await node.exitWithin(10_000);
    expect(exit, node.output().slice(-2000)).toMatchObject({ code: 0, signal: null });
    // Every shard's gateway once disconnected the node's one shared answer reader: 64 close
    // listeners on its socket, and Node's MaxListenersExceededWarning at every stop.
    expect(node.output()).not.toContain('Warning');
  });

  it('with its Redis frozen, exits 0 within a few seconds and says it left without letting go', async () => {
    // A long grace: without a bound of its own, the stop would wait on Redis until grace + margin.
    const node = startNode(redis!.url, dir!, mode, ['--drain-grace-ms', '30000']);
    child = node.child;
    await node.started();
    // SIGSTOP: every connection stays open and nothing answers (a stalled host, a long fork).
    redis!.signal('SIGSTOP');
    node.terminate();
    const exit = await node.exitWithin(10_000);
    expect(exit, node.output().slice(-2000)).toMatchObject({ code: 0, signal: null });
    expect(node.output()).toContain('redis did not answer the stop in time');
  });

  it('during its start exits 0 once started, not killed by the signal', async () => {
    // Frozen first, so the start waits on Redis and the signal surely comes while it starts.
    redis!.signal('SIGSTOP');
    const node = startNode(redis!.url, dir!, mode);
    child = node.child;
    await node.starting();
    node.terminate();
    await until(() => node.output().includes('signal while starting') || child!.exitCode !== null || child!.signalCode !== null, 10_000, 'the signal taken');
    redis!.signal('SIGCONT');
    const exit = await node.exitWithin(10_000);
    expect(exit, node.output().slice(-2000)).toMatchObject({ code: 0, signal: null });
    expect(node.output()).toContain('signal while starting: stopping once started');
  });

  it('during a start that cannot finish (Redis frozen throughout) exits within the stop margin, saying so', async () => {
    redis!.signal('SIGSTOP');
    const node = startNode(redis!.url, dir!, mode);
    child = node.child;
    await node.starting();
    node.terminate();
    const exit = await node.exitWithin(12_000);
    // 1: the stop was cut short (nothing was served; what the start took lapses with its leases).
    expect(exit, node.output().slice(-2000)).toMatchObject({ code: 1, signal: null });
    expect(exit!.afterMs).toBeGreaterThanOrEqual(4_000);
    expect(node.output()).toContain('not started and stopped in time after a signal while starting');
  });
});
