/**
 * The faults of `npm run chaos`, each as the load it runs and the blow it strikes:
 * kill (kill -9 of a shard owner), pause (SIGSTOP 5 s, then SIGCONT), redis-restart (kill -9 of
 * redis-server and a restart: on its AOF, or empty with --no-persist), overload (600 finds/s plus
 * two generators keeping 2,048 finds in flight each) and failover (30 tickets queued on one node
 * with no free slot, the node killed, capacity given once they are all queued on the survivors:
 * positions, FIFO and the time to the last assignment).
 */
import { readFileSync } from 'node:fs';
import { settledShards, type ChaosNode } from './chaos-node.js';
import { factoriesOf } from './chaos-config.js';
import type { ChaosOptions } from './chaos-run.js';
import type { GameServers } from './children.js';
import type { LoadPlan } from './load-plan.js';
import type { ObservationLog } from './observation-log.js';

export const SCENARIOS = ['kill', 'pause', 'redis-restart', 'overload', 'failover'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface FaultContext {
  readonly options: ChaosOptions;
  readonly restartRedis: () => Promise<void>;
  readonly victim: ChaosNode;
  readonly survivors: readonly ChaosNode[];
  readonly servers: GameServers;
  /** The run's own observations (deaths, capacity). */
  readonly own: ObservationLog;
  readonly pick: (n: number) => number;
  readonly plan: (prefix: string, extra: Partial<LoadPlan>) => LoadPlan;
  readonly loadStartAt: number;
}

export interface Fault {
  readonly loads: readonly LoadPlan[];
  /** Strikes at its time; resolves with the time of a kill, and of the capacity given after it, if it was one. */
  strike(): Promise<{ readonly killAt?: number; readonly capacityAt?: number }>;
}

const PAUSE_MS = 5000;
const FAILOVER_TICKETS = 30;
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

export function faultOf(scenario: Scenario, c: FaultContext): Fault {
  const strikeAt = c.loadStartAt + 0.4 * c.options.durationMs;
  const kill = () => {
    const at = Date.now();
    c.own.add({ kind: 'node-died', at, node: c.victim.nodeId });
    c.victim.signal('SIGKILL');
    return at;
  };
  switch (scenario) {
    case 'kill':
      return {
        loads: [c.plan('load', {})],
        strike: async () => {
          await sleepUntil(strikeAt);
          const killAt = kill();
          await settledShards(c.survivors);
          return { killAt };
        },
      };
    case 'pause':
      return {
        loads: [c.plan('load', {})],
        strike: async () => {
          await sleepUntil(strikeAt);
          c.victim.signal('SIGSTOP');
          await sleepUntil(Date.now() + PAUSE_MS);
          c.victim.signal('SIGCONT');
          return {};
        },
      };
    case 'redis-restart':
      return { loads: [c.plan('load', {})], strike: async () => (await sleepUntil(strikeAt), await c.restartRedis(), {}) };
    case 'overload': {
      const flood = { ratePerSecond: Math.max(2000, c.options.ratePerSecond * 4), maxInFlight: 2048 };
      return {
        loads: [c.plan('load', { ratePerSecond: Math.max(600, c.options.ratePerSecond) }), c.plan('flood1', flood), c.plan('flood2', flood)],
        strike: async () => ({}),
      };
    }
    case 'failover': {
      const factory = factoriesOf('solo').find((f) => c.victim.owned.has(f.shard));
      if (!factory) throw new Error(`the victim owns none of the solo factories' shards (${[...c.victim.owned].join(',')})`);
      const load = c.plan('failover', { template: 'solo', factories: [factory], ratePerSecond: 50, durationMs: (FAILOVER_TICKETS * 1000) / 50, firstNodeOnly: true });
      return {
        loads: [load],
        strike: async () => {
          await queuedTickets(load.out, FAILOVER_TICKETS, 0, 20_000);
          const killAt = kill();
          const giveCapacity = async () => {
            const capacityAt = Date.now();
            await c.servers.capacity(FAILOVER_TICKETS + 10);
            c.own.add({ kind: 'capacity', at: capacityAt, factory: factory.name });
            return capacityAt;
          };
          // At the kill: the new owner has slots while the tickets resume one by one (FIFO across
          // failover). After the requeue: no slot is free until every ticket is queued again on
          // the survivors, so each position told after the kill is checked too.
          const early = c.options.failoverCapacity === 'at-kill' ? await giveCapacity() : undefined;
          await settledShards(c.survivors);
          if (early !== undefined) return { killAt, capacityAt: early };
          await queuedTickets(load.out, FAILOVER_TICKETS, killAt, 20_000).catch((e: Error) => process.stderr.write(`chaos failover: ${e.message}; capacity given anyway\n`));
          return { killAt, capacityAt: await giveCapacity() };
        },
      };
    }
  }
}

/** Waits until `count` tickets of a load's observation file were told queued after `since` (bounded). */
async function queuedTickets(path: string, count: number, since: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      // not written yet
    }
    const told = text.split('\n').filter((l) => l.includes('"kind":"queued"')).map((l) => JSON.parse(l) as { ticketId: string; at: number });
    const queued = new Set(told.filter((q) => q.at > since).map((q) => q.ticketId));
    if (queued.size >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${queued.size} of ${count} failover tickets were told queued within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
