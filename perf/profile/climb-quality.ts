/**
 * What the hill-climb's budget buys in one large team batch: the batch of competitive-batch.ts
 * (n tickets, normal scores, waits up to 40 s, the bench's widening) formed at each budget, and
 * the quality of what it formed, beside its CPU time and the bare sort of the same scores:
 *   npx tsx perf/profile/climb-quality.ts [n=100000] [teamSize=5] [budgets=0,10,25,50,100] [seeds=2] [parties=0]
 * parties=1 makes a third of the tickets parties of 2 to teamSize players. Quality is what a
 * player sees: tickets matched, the score gap inside a game and the gap between its teams (both in
 * sigma of the batch's scores), TrueSkill's match quality; and the climb's own objective for this
 * config (game-objective.ts: imbalance + 0.5 spread per game, 0.02 per player-second benched).
 */
import { CompetitiveMatcher, OBJECTIVE_WEIGHTS, seededRandom, type CompetitiveTicket } from '../../src/competitive/index.js';

const n = Number(process.argv[2] ?? 100_000);
const teamSize = Number(process.argv[3] ?? 5);
const budgets = (process.argv[4] ?? '0,10,25,50,100').split(',').map(Number);
const seeds = Number(process.argv[5] ?? 2);
const parties = process.argv[6] === '1';

const random = seededRandom(n + teamSize);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const tickets: CompetitiveTicket[] = Array.from({ length: n }, (_, k) => {
  const size = parties && random() < 1 / 3 ? 2 + Math.floor(random() * (teamSize - 1)) : 1;
  const base = normal();
  const players = Array.from({ length: size }, (_, p) => ({ playerId: `t${k}.${p}`, score: base + 0.2 * normal() }));
  return { ticketId: `t${k}`, players, enqueuedAt: -Math.floor(random() * 40_000), latencyMs: new Map(), preferredMaps: [], vetoedMaps: [] };
});
const waitOf = new Map(tickets.map((t) => [t.ticketId, { seconds: -t.enqueuedAt / 1000, players: t.players.length }]));
const allScores = tickets.flatMap((t) => t.players.map((p) => p.score));
const scoreMean = allScores.reduce((s, x) => s + x, 0) / allScores.length;
const sigma = Math.sqrt(allScores.reduce((s, x) => s + (x - scoreMean) ** 2, 0) / allScores.length);
const expansion = [
  { afterMs: 0, maxScoreGap: 0.1, maxLatencyMs: Infinity },
  { afterMs: 10_000, maxScoreGap: 0.3, maxLatencyMs: Infinity },
  { afterMs: 30_000, maxScoreGap: 1, maxLatencyMs: Infinity },
];
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(0.99 * (xs.length - 1))] ?? NaN;

console.log(`n=${n} ${teamSize}v${teamSize}${parties ? ' with parties' : ''}, sigma ${sigma.toFixed(3)}`);
console.log('budget ms | seed | CPU batch / sort ms | climb moves | converged | players matched | gap σ mean / p99 | imbalance σ mean / p99 | match quality | objective');
for (let seed = 0; seed < seeds; seed++) {
  // One untimed batch first with the largest budget, so no budget's figures are the JIT compiling
  // the batch or the climb (a climb run first in the interpreter tries a fraction of its moves).
  const runs = [Math.max(...budgets), ...budgets];
  for (let run = 0; run < runs.length; run++) {
    const budget = runs[run] as number;
    const matcher = new CompetitiveMatcher(
      { teams: 2, teamSize, batch: { maxTickets: 1_000, intervalMs: 1_000 }, expansion, hillClimbBudgetMs: budget, teamScore: 'mean', maps: [], regions: [] },
      { now: () => performance.now(), random: seededRandom(seed) },
    );
    for (const ticket of tickets) matcher.add(ticket);
    const scores = tickets.map((t) => t.players[0]?.score ?? 0);
    const sortStart = process.cpuUsage();
    scores.sort((a, b) => a - b);
    const sortMs = cpuMs(sortStart);
    const start = process.cpuUsage();
    const games = matcher.formGames(0);
    const batchMs = cpuMs(start);
    if (run === 0) continue;
    const report = matcher.lastBatch();
    const gaps = games.map((g) => g.quality.scoreGap / sigma);
    const imbalances = games.map((g) => g.quality.teamImbalance / sigma);
    let matchedPlayers = 0;
    const benched = new Map(waitOf);
    for (const g of games) for (const team of g.teams) for (const id of team) {
      matchedPlayers += waitOf.get(id)?.players ?? 0;
      benched.delete(id);
    }
    let benchCost = 0;
    for (const { seconds, players } of benched.values()) benchCost += OBJECTIVE_WEIGHTS.benchPerPlayerSecond * players * seconds;
    const objective =
      games.reduce((s, g) => s + (OBJECTIVE_WEIGHTS.teamImbalance * g.quality.teamImbalance + OBJECTIVE_WEIGHTS.spread * g.quality.scoreGap) / sigma, 0) +
      benchCost;
    console.log(
      [
        budget,
        seed,
        `${batchMs.toFixed(0)} / ${sortMs.toFixed(0)} (${(batchMs / sortMs).toFixed(2)}×)`,
        report?.climbAttempts,
        report?.converged,
        matchedPlayers,
        `${mean(gaps).toFixed(4)} / ${p99(gaps).toFixed(3)}`,
        `${mean(imbalances).toFixed(5)} / ${p99(imbalances).toFixed(4)}`,
        mean(games.map((g) => g.quality.matchQuality)).toFixed(5),
        objective.toFixed(2),
      ].join(' | '),
    );
  }
}
