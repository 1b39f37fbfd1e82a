/**
 * What the hill-climb's budget buys on the simulator (src/simulation): a 5v5 factory with parties
 * fed a steady stream of arrivals, batched every `intervalMs`, so each batch holds about
 * perSecond × intervalMs tickets; the climb runs on this machine's clock with each budget (and
 * frozen, "converged"). Quality is what the simulation measures against true skill: the gap
 * between the best and worst player of a game, the predicted chance the favourite wins, match
 * quality, and waits. All budgets see the same arrivals.
 *   npx tsx perf/profile/climb-simulated.ts [perSecond=2000] [intervalMs=5000] [minutes=5] [budgets=0,10,100,converged]
 */
import { runCompetitive } from '../../src/simulation/competitive-run.js';
import { DEFAULT_ROUTE } from '../../src/simulation/latency-model.js';
import { createPopulation } from '../../src/simulation/population.js';
import { GamefactoryQueue } from '../../src/simulation/queues/gamefactory-queue.js';
import { parseScenario } from '../../src/simulation/scenario.js';
import { mean, quantile } from '../../src/simulation/statistics.js';

const perSecond = Number(process.argv[2] ?? 2_000);
const intervalMs = Number(process.argv[3] ?? 5_000);
const minutes = Number(process.argv[4] ?? 5);
const budgets = (process.argv[5] ?? '0,10,100,converged').split(',');

const scenario = parseScenario(`
seed: 2031
factory: team
population:
  players: 400000
  skill: { mean: 0, sd: 1 }
  performanceSd: 0.75
  regions: [{ name: here, weight: 1, latitude: 0, longitude: 0 }]
arrivals: { perSecond: ${perSecond}, partySizes: { '1': 6, '2': 2, '3': 1, '5': 1 } }
sessions: { gamesMean: 5, gameSeconds: 300 }
durationHours: 1
`);
const population = createPopulation(scenario, 1);
const locality = { ...DEFAULT_ROUTE, regionLocations: new Map([['here', { latitude: 0, longitude: 0 }]]) };
const expansion = [
  { afterMs: 0, maxScoreGap: 0.1, maxLatencyMs: Infinity },
  { afterMs: 10_000, maxScoreGap: 0.3, maxLatencyMs: Infinity },
  { afterMs: 30_000, maxScoreGap: 1, maxLatencyMs: Infinity },
];
console.log(`5v5 with parties, ${perSecond} tickets/s, a batch every ${intervalMs} ms (~${(perSecond * intervalMs) / 1000} tickets), ${minutes} min simulated`);
console.log('budget | games | gap σ mean / p99 | favourite wins p mean | match quality mean | wait s mean / p99 | unmatched | CPU s');
for (const budget of budgets) {
  const converged = budget === 'converged';
  const factory = {
    teams: 2,
    teamSize: 5,
    batch: { maxTickets: 1_000_000, intervalMs },
    expansion,
    hillClimbBudgetMs: converged ? 10_000 : Number(budget),
    teamScore: 'mean',
    maps: [],
    regions: [],
  } as const;
  const queue = new GamefactoryQueue(factory, 1, 'gamefactory', converged ? () => 0 : () => performance.now());
  const cpu = process.cpuUsage();
  const log = runCompetitive({ scenario, population, queue, perSecond, durationMs: minutes * 60_000, teams: 2, teamSize: 5, locality, steady: true, warmupMs: 60_000 });
  const used = process.cpuUsage(cpu);
  const p = log.favourites.map((f) => f.probability);
  const q = log.favourites.map((f) => f.matchQuality);
  console.log(
    [
      budget,
      log.games,
      `${mean(log.gapsSigma).toFixed(4)} / ${quantile(log.gapsSigma, 0.99).toFixed(3)}`,
      mean(p).toFixed(5),
      mean(q).toFixed(5),
      `${(mean(log.waitsMs) / 1000).toFixed(2)} / ${(quantile(log.waitsMs, 0.99) / 1000).toFixed(2)}`,
      log.unmatched,
      ((used.user + used.system) / 1e6).toFixed(1),
    ].join(' | '),
  );
}
