/**
 * One chaos run with real processes: its own redis-server (AOF always, or none for
 * `redis-restart --no-persist`), three `gamefactory start --redis` nodes, three SDK game servers
 * and load generators in processes of their own, then the fault; every process records what it
 * saw, and the run reads the merged history through the cluster contract.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Observation } from '../../src/cluster/contract/index.js';
import { RedisServer } from '../../test/redis/redis-server.js';
import { CONFIG_YAML, MAX_PLAYERS, TICKET_TTL_MS, factoriesOf, shardOf } from './chaos-config.js';
import { ChaosNode, settledShards } from './chaos-node.js';
import { runLoad, startServers } from './children.js';
import type { LoadPlan } from './load-plan.js';
import { ObservationLog, mergedObservations } from './observation-log.js';
import { faultOf, type Scenario } from './scenarios.js';
import { summarise, type RunFacts, type RunSummary } from './summary.js';

export interface ChaosOptions {
  readonly scenario: Scenario;
  readonly noPersist: boolean;
  readonly ratePerSecond: number;
  readonly durationMs: number;
  readonly settleMs: number;
  readonly callDeadlineMs: number;
  /** failover: capacity given at the kill, or once every ticket is queued again on the survivors. */
  readonly failoverCapacity: 'at-kill' | 'after-requeue';
  /** How the nodes run: the compiled bin or the sources (perf/bench/child-process.ts coordinatorEntry). */
  readonly entry: readonly string[];
}

export interface ChaosResult {
  readonly facts: RunFacts;
  readonly summary: RunSummary;
}

const NODES = 3;
const SERVER_IDS = ['gs1', 'gs2', 'gs3'];

export async function chaosRun(options: ChaosOptions, seed: number, run: number, runs: number): Promise<ChaosResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gf-chaos-'));
  const configPath = join(dir, 'chaos.yaml');
  writeFileSync(configPath, CONFIG_YAML);
  const own = new ObservationLog(join(dir, 'run.jsonl'));
  const files = [join(dir, 'servers.jsonl'), join(dir, 'run.jsonl')];
  const redis: { current?: RedisServer } = {};
  const nodes: ChaosNode[] = [];
  let random = seed >>> 0 || 1;
  const pick = (n: number) => ((random ^= random << 13), (random ^= random >>> 17), (random ^= random << 5), (random >>> 0) % n);
  try {
    const persistence = options.noPersist ? {} : { appendfsync: 'always' as const };
    const redisDir = mkdtempSync(join(dir, 'redis-'));
    redis.current = await RedisServer.start({ ...persistence, dir: redisDir });
    const { port, url } = redis.current;
    // kill -9 and start again on the same port and directory: what the AOF kept (or nothing) comes back.
    const restartRedis = async () => {
      await redis.current!.kill('SIGKILL');
      redis.current = await RedisServer.start({ ...persistence, dir: redisDir, port });
    };
    for (let i = 0; i < NODES; i++) nodes.push(await ChaosNode.start(options.entry, url, configPath));
    await settledShards(nodes);
    const addresses = nodes.map((n) => n.address);
    const failover = options.scenario === 'failover';
    const victim = nodes[pick(NODES)]!;
    const survivors = nodes.filter((n) => n !== victim);
    // The failover run: everything starts on the victim (servers and tickets), which then dies.
    const ordered = failover ? [victim.address, ...survivors.map((n) => n.address)] : addresses;
    const servers = await startServers({
      addresses: ordered,
      serverIds: SERVER_IDS,
      maxGames: failover ? 0 : options.scenario === 'overload' ? 4000 : 1000,
      maxPlayers: MAX_PLAYERS,
      firstNodeOnly: failover,
      out: files[0]!,
    });
    const loadStartAt = Date.now();
    const plan = (prefix: string, extra: Partial<LoadPlan>): LoadPlan => {
      const out = join(dir, `${prefix}.jsonl`);
      files.push(out);
      return {
        addresses: ordered,
        prefix: `${prefix}-r${run}`,
        template: 'chaos',
        factories: factoriesOf('chaos'),
        ratePerSecond: options.ratePerSecond,
        durationMs: options.durationMs,
        maxInFlight: 1_000_000,
        settleMs: options.settleMs,
        callDeadlineMs: options.callDeadlineMs,
        seed: seed + run,
        out,
        ...extra,
      };
    };
    const fault = faultOf(options.scenario, { options, restartRedis, victim, survivors, servers, own, pick, plan, loadStartAt });
    const loads = fault.loads.map((p) => runLoad(p, p.durationMs * 2 + p.settleMs + 60_000));
    const { killAt, capacityAt } = await fault.strike();
    await Promise.all(loads.map((l) => l.done));
    await servers.stop();
    for (const node of nodes) for (const fence of node.fences) own.add(fence);
    await own.close();
    const observations: Observation[] = mergedObservations(files);
    // The end of the history: what the servers saw after the load ended is part of it.
    const finishAt = Math.max(Date.now(), observations.at(-1)?.at ?? 0);
    const facts: RunFacts = { scenario: options.scenario + (options.noPersist ? ' --no-persist' : ''), run, runs, seed, loadStartAt, killAt };
    const leaseMs = victim.leaseMs;
    const summary = summarise(
      observations,
      {
        ticketTtlMs: TICKET_TTL_MS,
        shardOf,
        leaseMs,
        awaitCapacity: failover,
        // Until the failover run gives capacity, its tickets wait in one queue with no free slot:
        // each should be told its place in first-find order, before the kill and after it alike.
        expectedPosition: failover ? (q, t) => (q.at < (capacityAt ?? Infinity) ? t.waitingAhead + 1 : undefined) : undefined,
      },
      facts,
      finishAt,
    );
    return { facts, summary };
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
    await redis.current?.stop();
    if (!process.env.CHAOS_KEEP) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`chaos: observations kept in ${dir}\n`);
  }
}
