import type { CompetitiveConfig } from '../../competitive/index.js';
import { DEFAULT_TRUESKILL, eloExpected, type TrueSkillParams } from '../../ratings/index.js';
import type { SimPlayer } from '../population.js';
import { GamefactoryQueue } from '../queues/gamefactory-queue.js';
import { LenienceQueue } from '../queues/lenience-queue.js';
import type { QueuedTicket, SimulatedQueue } from '../queues/simulated-queue.js';
import { Sampler, streamSeed } from '../sampling.js';
import type { Summary } from '../statistics.js';
import { rateOneOnOne } from './one-on-one-trueskill.js';
import type { PaperScenario } from './paper-scenario.js';

export type PaperSystem = 'elo' | 'trueskill';
export type PaperMatcher = 'lenience rule' | 'gamefactory';

/** One rating group at one sample: the paper's Figures 5-8 and 10-13 are these over time. */
export interface GroupSample {
  readonly group: string;
  /** Players rated in the group at the sample. */
  readonly players: number;
  readonly meanTrueMmr: number;
  /** Of games started since the last sample by players then rated in the group. */
  readonly meanWaitTicks: number;
  /** Of games ended since the last sample by players rated in the group when they started. */
  readonly winRate: number;
}

export interface PaperRun {
  readonly system: PaperSystem;
  readonly matcher: PaperMatcher;
  readonly games: number;
  readonly waitTicks: Summary;
  /** Best minus worst true MMR per game, in the population's sd. */
  readonly gapSd: Summary;
  readonly samples: { readonly tick: number; readonly groups: GroupSample[] }[];
}

export interface PaperReport {
  readonly scenario: { readonly seed: number; readonly players: number; readonly ticks: number };
  readonly runs: PaperRun[];
}

/** Every system against every matcher on the same population; `progress` says what runs, with no effect. */
export function runPaperExperiment(scenario: PaperScenario, progress: (what: string) => void = () => {}): PaperReport {
  const runs: PaperRun[] = [];
  for (const system of ['elo', 'trueskill'] as const) {
    for (const matcher of ['lenience rule', 'gamefactory'] as const) {
      progress(`${system}, ${matcher}: ${scenario.players} players, ${scenario.ticks} ticks`);
      runs.push(runOne(scenario, system, matcher));
    }
  }
  return { scenario: { seed: scenario.seed, players: scenario.players, ticks: scenario.ticks }, runs };
}

const TICK_MS = 1000;
const NO_PINGS: ReadonlyMap<string, number> = new Map();

function runOne(scenario: PaperScenario, system: PaperSystem, matcher: PaperMatcher): PaperRun {
  const n = scenario.players;
  const population = new Sampler(streamSeed(scenario.seed, 1));
  const outcomes = new Sampler(streamSeed(scenario.seed, 2));
  const trueMmr = new Float64Array(n);
  const latency = new Float64Array(n);
  const players: SimPlayer[] = [];
  for (let i = 0; i < n; i++) {
    trueMmr[i] = population.normal(scenario.trueMmr.mean, scenario.trueMmr.sd);
    latency[i] = Math.max(1, population.normal(scenario.latencyMs.mean, scenario.latencyMs.sd));
    // Ids are the index as text: a match names its tickets, and Number() reads them back.
    players.push({ id: String(i), index: i, trueSkill: trueMmr[i]!, region: 'server', location: { latitude: 0, longitude: 0 }, language: 'en', routeFactor: 1 });
  }
  // Everyone starts at the average rating (the paper: "all players begin with an average MMR").
  const rating = new Float64Array(n).fill(scenario.trueMmr.mean);
  const sigma = new Float64Array(n).fill(scenario.trueskill.sigma);
  const trueskill: TrueSkillParams = { ...DEFAULT_TRUESKILL, mu: scenario.trueMmr.mean, ...scenario.trueskill, drawProbability: 0 };

  const queue = makeQueue(scenario, system, matcher);
  const idleSince = new Int32Array(n);
  const groupAtStart = new Int8Array(n);
  const groupOf = (r: number): number => {
    let g = 0;
    while (g < scenario.groups.length && r >= (scenario.groups[g] as number)) g += 1;
    return g;
  };
  const groupCount = scenario.groups.length + 1;
  const windowWaits = new Float64Array(groupCount);
  const windowStarts = new Float64Array(groupCount);
  const windowWins = new Float64Array(groupCount);
  const windowEnds = new Float64Array(groupCount);
  // Games end `gameTicks` after they start: one list of [winner, loser] per ending tick, in a ring.
  const ending: number[][] = Array.from({ length: scenario.gameTicks + 1 }, () => []);

  const enqueue = (i: number, tick: number): void => {
    idleSince[i] = tick;
    const r = rating[i] as number;
    const player = players[i] as SimPlayer;
    const ticket: QueuedTicket = {
      id: player.id,
      players: [player],
      playerScores: [r],
      score: r,
      // gamefactory widens a TrueSkill player's window by its uncertainty, as in production.
      uncertainty: system === 'trueskill' && matcher === 'gamefactory' ? (sigma[i] as number) : 0,
      enqueuedAt: tick * TICK_MS,
      latencyMs: NO_PINGS,
      location: player.location,
      language: 'en',
      bestLatencyMs: latency[i] as number,
    };
    queue.arrive(ticket);
  };
  for (let i = 0; i < n; i++) enqueue(i, 0);

  // Millions of games: waits (whole ticks) and gaps (0.01 sd bins) are counted, not kept.
  const waits = new BinnedSummary(1, 1000);
  const gaps = new BinnedSummary(0.01, 1000);
  const samples: PaperRun['samples'] = [];
  let games = 0;
  for (let tick = 1; tick <= scenario.ticks; tick++) {
    // Games ending now: rate them, and their players queue again.
    const slot = ending[tick % ending.length] as number[];
    for (let k = 0; k < slot.length; k += 2) {
      const winner = slot[k] as number;
      const loser = slot[k + 1] as number;
      windowWins[groupAtStart[winner] as number]! += 1;
      windowEnds[groupAtStart[winner] as number]! += 1;
      windowEnds[groupAtStart[loser] as number]! += 1;
      if (system === 'elo') {
        // The winner gains K (1 - E) and the loser loses as much (the paper's equations).
        const change = scenario.elo.kFactor * (1 - eloExpected(rating[winner] as number, rating[loser] as number, scenario.elo.scale));
        rating[winner] = (rating[winner] as number) + change;
        rating[loser] = (rating[loser] as number) - change;
      } else {
        rateOneOnOne(rating, sigma, winner, loser, trueskill);
      }
      enqueue(winner, tick);
      enqueue(loser, tick);
    }
    slot.length = 0;

    for (const match of queue.check(tick * TICK_MS)) {
      const a = Number((match.teams[0] as readonly string[])[0]);
      const b = Number((match.teams[1] as readonly string[])[0]);
      games += 1;
      for (let side = 0; side < 2; side++) {
        const p = side === 0 ? a : b;
        const g = groupOf(rating[p] as number);
        groupAtStart[p] = g;
        windowWaits[g]! += tick - (idleSince[p] as number);
        windowStarts[g]! += 1;
        waits.add(tick - (idleSince[p] as number));
      }
      gaps.add(Math.abs((trueMmr[a] as number) - (trueMmr[b] as number)) / scenario.trueMmr.sd);
      // The outcome from true MMR alone, Elo's own model (the paper: "based on their hidden skill").
      const aWins = outcomes.uniform() < 1 / (1 + 10 ** (((trueMmr[b] as number) - (trueMmr[a] as number)) / scenario.elo.scale));
      const end = ending[(tick + scenario.gameTicks) % ending.length] as number[];
      end.push(aWins ? a : b, aWins ? b : a);
    }

    if (tick % scenario.sampleEvery === 0) {
      const count = new Float64Array(groupCount);
      const truth = new Float64Array(groupCount);
      for (let i = 0; i < n; i++) {
        const g = groupOf(rating[i] as number);
        count[g]! += 1;
        truth[g]! += trueMmr[i] as number;
      }
      samples.push({
        tick,
        groups: Array.from({ length: groupCount }, (_, g) => ({
          group: groupLabel(scenario.groups, g),
          players: count[g] as number,
          meanTrueMmr: (count[g] as number) > 0 ? (truth[g] as number) / (count[g] as number) : NaN,
          meanWaitTicks: (windowStarts[g] as number) > 0 ? (windowWaits[g] as number) / (windowStarts[g] as number) : NaN,
          winRate: (windowEnds[g] as number) > 0 ? (windowWins[g] as number) / (windowEnds[g] as number) : NaN,
        })),
      });
      for (const w of [windowWaits, windowStarts, windowWins, windowEnds]) w.fill(0);
    }
  }
  return { system, matcher, games, waitTicks: waits.summary(), gapSd: gaps.summary(), samples };
}

function makeQueue(scenario: PaperScenario, system: PaperSystem, matcher: PaperMatcher): SimulatedQueue {
  if (matcher === 'lenience rule') {
    const { lenience } = scenario;
    return new LenienceQueue({ perScore: lenience.perScore[system], perMs: lenience.perMs, growthPerSecond: lenience.growthPerTick });
  }
  const config: CompetitiveConfig = {
    teams: 2,
    teamSize: 1,
    teamScore: 'mean',
    // A batch at every tick; the whole idle population fits in one.
    batch: { maxTickets: 10_000_000, intervalMs: 1 },
    expansion: [{ afterMs: 0, maxScoreGap: Infinity, maxLatencyMs: Infinity }],
    hillClimbBudgetMs: 0,
    maps: [],
    regions: [],
    target: {
      waitP99Ms: scenario.gamefactory.waitP99Ticks * TICK_MS,
      ...(scenario.gamefactory.meanWaitTicks !== undefined && { meanWaitMs: scenario.gamefactory.meanWaitTicks * TICK_MS }),
    },
    pairWindow: 'budget',
  };
  return new GamefactoryQueue(config, streamSeed(scenario.seed, 3));
}

function groupLabel(bounds: readonly number[], g: number): string {
  if (g === 0) return `< ${bounds[0]}`;
  if (g === bounds.length) return `>= ${bounds[bounds.length - 1]}`;
  return `${bounds[g - 1]}-${bounds[g]}`;
}

/**
 * Count, mean and quantiles of values binned `width` wide (the last bin holds everything beyond):
 * quantiles are the upper edge of their bin, exact for whole ticks with width 1 less one.
 */
class BinnedSummary {
  private readonly counts: Float64Array;
  private total = 0;
  private sum = 0;
  constructor(
    private readonly width: number,
    bins: number,
  ) {
    this.counts = new Float64Array(bins);
  }
  add(x: number): void {
    this.counts[Math.min(this.counts.length - 1, Math.floor(x / this.width))]! += 1;
    this.total += 1;
    this.sum += x;
  }
  summary(): Summary {
    const at = (q: number): number => {
      const rank = Math.ceil(q * this.total);
      let seen = 0;
      for (let b = 0; b < this.counts.length; b++) {
        seen += this.counts[b] as number;
        if (seen >= rank) return this.width === 1 ? b : (b + 1) * this.width;
      }
      return this.counts.length * this.width;
    };
    return { count: this.total, mean: this.total > 0 ? this.sum / this.total : NaN, p50: at(0.5), p90: at(0.9), p99: at(0.99) };
  }
}
