/**
 * One competitive batch of n solo tickets, as the competitive bench times it, beside the bare sort
 * of the same scores (perf/PROFILE.md). With CPU_PROFILE=file.cpuprofile the batches alone are
 * profiled through the inspector:
 *   npx tsx perf/profile/competitive-batch.ts [n=100000] [teamSize=1] [reps=5] [hillClimbBudgetMs=100]
 * Each figure is the median of `reps` rounds after two untimed ones (the JIT compiling the batch,
 * on threads whose CPU time counts too, and the young generation growing to its working size).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CompetitiveMatcher, seededRandom, type CompetitiveTicket } from '../../src/competitive/index.js';

const n = Number(process.argv[2] ?? 100_000);
const teamSize = Number(process.argv[3] ?? 1);
const reps = Number(process.argv[4] ?? 5);
const hillClimbBudgetMs = Number(process.argv[5] ?? 100);

const random = seededRandom(n + teamSize);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const tickets: CompetitiveTicket[] = Array.from({ length: n }, (_, k) => {
  const score = normal();
  return { ticketId: `t${k}`, players: [{ playerId: `t${k}`, score }], enqueuedAt: -Math.floor(random() * 40_000), latencyMs: new Map(), preferredMaps: [], vetoedMaps: [] };
});
const expansion = [
  { afterMs: 0, maxScoreGap: 0.1, maxLatencyMs: Infinity },
  { afterMs: 10_000, maxScoreGap: 0.3, maxLatencyMs: Infinity },
  { afterMs: 30_000, maxScoreGap: 1, maxLatencyMs: Infinity },
];

const profileTo = process.env['CPU_PROFILE'];
const session = profileTo === undefined ? undefined : new Session();
if (session !== undefined) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 }); // µs: a batch is ~100 ms
}
const batch: number[] = [];
const sort: number[] = [];
// CPU time (user + system of the process) beside wall time: the machine is shared, and a
// neighbour's load stretches wall time but not much the CPU time this process spends.
const batchCpu: number[] = [];
const sortCpu: number[] = [];
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
for (let rep = -2; rep < reps; rep++) {
  const matcher = new CompetitiveMatcher(
    { teams: 2, teamSize, batch: { maxTickets: 1_000, intervalMs: 1_000 }, expansion, hillClimbBudgetMs, teamScore: 'mean', maps: [], regions: [] },
    { now: () => performance.now(), random: seededRandom(rep) },
  );
  for (const ticket of tickets) matcher.add(ticket);
  // The floor first, then the batch: each then follows the same step in both builds (the fill,
  // then the sort), so a batch that leaves less garbage behind does not also speed up the sort
  // it is compared with (the sort boxes the scores it moves, and the young generation's state
  // moves both by tens of percent).
  const scores = tickets.map((t) => t.players[0]?.score ?? 0);
  const sortCpuStart = process.cpuUsage();
  const sortStart = performance.now();
  scores.sort((a, b) => a - b);
  const sortWall = performance.now() - sortStart;
  const sortCpuMs = cpuMs(sortCpuStart);
  if (session !== undefined && rep === reps - 1) await session.post('Profiler.start');
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const games = matcher.formGames(0).length;
  const batchWall = performance.now() - start;
  const batchCpuMs = cpuMs(cpuStart);
  if (rep >= 0) {
    sort.push(sortWall);
    sortCpu.push(sortCpuMs);
    batch.push(batchWall);
    batchCpu.push(batchCpuMs);
  }
  if (session !== undefined && profileTo !== undefined && rep === reps - 1) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileTo, JSON.stringify(profile));
  }
  if (rep === reps - 1) {
    const report = matcher.lastBatch();
    console.log(`${games} games, climb: ${report?.climbAttempts} attempts, ${report?.climbImprovements} kept, converged ${report?.converged}`);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
console.log(
  `n=${n} ${teamSize}v${teamSize}: wall batch ${median(batch).toFixed(1)} ms, sort ${median(sort).toFixed(1)} ms, ` +
    `ratio ${(median(batch) / median(sort)).toFixed(2)}x; CPU batch ${median(batchCpu).toFixed(1)} ms, ` +
    `sort ${median(sortCpu).toFixed(1)} ms, ratio ${(median(batchCpu) / median(sortCpu)).toFixed(2)}x`,
);
