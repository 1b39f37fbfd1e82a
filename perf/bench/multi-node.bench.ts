/**
 * Several real nodes on one Redis (issue 11): tickets/s with 1, 2 and 3 `gamefactory start
 * --redis` processes on this machine, each node fed by its own load generator (fake servers and
 * FindGames streams, in this process), CPU per ticket on each node (/proc/<pid>/stat), and
 * redis-benchmark's ops/s on the same Redis in the same run. On a 2-core machine the nodes, the
 * load generators and Redis share the cores: the rows show the cost split, not a scaling curve.
 */
import { readFileSync } from 'node:fs';
import { runLoad } from '../../clients/loadgen/load-generator.js';
import { RedisServer } from '../../test/redis/redis-server.js';
import { NodeProcess } from '../../test/multi-node/node-process.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';
import { redisBenchmarkOps } from './redis-benchmark.js';

const GROUP = 'multi-node on one Redis (cooperative, 4 seats/game)';
const PARTITION = { difficulty: 'hard', hardcore: false, version: 'v201' };

/** User + system CPU of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function runNodes(redis: RedisServer, count: number, tickets: number): Promise<BenchRow[]> {
  const nodes: NodeProcess[] = [];
  try {
    for (let i = 0; i < count; i++) nodes.push(await NodeProcess.start(redis.url));
    await nodes[0]!.waitFor(/this node now runs the matcher/, 15_000);
    const before = nodes.map((n) => cpuMs(n.pid));
    const started = performance.now();
    const reports = await Promise.all(
      nodes.map((node, i) =>
        runLoad({
          address: node.address,
          servers: 2,
          maxGamesPerServer: 1000,
          playersPerGame: 4,
          tickets: Math.ceil(tickets / count),
          rate: 0,
          concurrency: 256,
          mode: 'stream',
          template: 'diablo',
          partition: PARTITION,
          runId: `n${count}-${i}`,
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const assigned = reports.reduce((sum, r) => sum + r.assigned, 0);
    const rows: BenchRow[] = [
      { group: GROUP, subject: 'gamefactory --redis', n: count, metric: 'tickets/s (all nodes)', value: assigned / seconds, higherIsBetter: true },
      { group: GROUP, subject: 'gamefactory --redis', n: count, metric: 'tickets lost', value: reports.reduce((s, r) => s + r.sent - r.assigned, 0), higherIsBetter: false },
    ];
    nodes.forEach((node, i) => {
      // The owner (node 0) runs the matcher for every ticket; the others relay their own.
      const served = i === 0 ? assigned : reports[i]!.assigned;
      rows.push({
        group: GROUP,
        subject: i === 0 ? 'matcher owner node' : `relay node ${i}`,
        n: count,
        metric: 'cpu ms per ticket it handled',
        value: (cpuMs(node.pid) - before[i]!) / Math.max(1, served),
        higherIsBetter: false,
      });
    });
    return rows;
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

const suite: BenchSuite = {
  name: 'multi-node',
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const tickets = quick ? 400 : 6000;
    const redis = await RedisServer.start({ appendfsync: 'everysec' });
    try {
      const rows: BenchRow[] = [];
      for (const count of [1, 2, 3]) rows.push(...(await runNodes(redis, count, tickets)));
      rows.push({ group: GROUP, subject: 'redis-benchmark SET -c 50', metric: 'ops/s', value: redisBenchmarkOps(redis.port, 50, quick ? 20_000 : 200_000), higherIsBetter: true });
      return rows;
    } finally {
      await redis.stop();
    }
  },
};

export default suite;
