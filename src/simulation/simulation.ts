import type { CompetitiveConfig, LocalityConfig } from '../competitive/index.js';
import type { CoordinatorConfig } from '../config/config.js';
import { runCompetitive } from './competitive-run.js';
import { runCooperative, type CooperativeSummary } from './cooperative-run.js';
import { DEFAULT_ROUTE } from './latency-model.js';
import { AS_SHIPPED, isOurs, operatingPoints, targetsAt, type OperatingPoint } from './operating-points.js';
import { createPopulation } from './population.js';
import {
  checkGoals,
  checkShipped,
  summarizeGoals,
  type FrontierPoint,
  type GoalCheck,
  type GoalSummary,
  type ShippedCheck,
} from './quality-goals.js';
import { GamefactoryQueue } from './queues/gamefactory-queue.js';
import { runRatings } from './rating-systems.js';
import { streamSeed } from './sampling.js';
import type { Scenario } from './scenario.js';
import { histogram, mean, quantile, round, summarize, type Summary } from './statistics.js';

export interface SimulationReport {
  readonly scenario: { readonly seed: number; readonly factory: string; readonly perSecond: number; readonly durationHours: number; readonly players: number };
  /**
   * The day as production runs it: the factory as configured (regions, locality, soft
   * preferences), players matched on its ladder's ratings (or true skill), every game rated by
   * every system.
   */
  readonly main: {
    /** The rating system players were matched on, or 'true skill'. */
    readonly matchedOn: string;
    readonly games: number;
    readonly ticketsQueued: number;
    readonly unmatched: number;
    readonly waitS: Summary;
    readonly gapSigma: Summary;
    readonly latencyMs: Summary;
    readonly latencyHistogram: { from: number; count: number }[];
    /**
     * Each game's predicted chance that the side rated higher wins (the matcher's quality figure),
     * in bins of 0.05 from 0.5, with how often that side did win: a calibrated figure wins as often
     * as it says.
     */
    readonly favouriteCalibration: { from: number; games: number; predicted: number; won: number }[];
    readonly matchQuality: Summary;
  };
  readonly frontier: FrontierPoint[];
  readonly distributions: { matcher: string; waitsS: { from: number; count: number }[]; gapsSigma: { from: number; count: number }[] }[];
  readonly goals: GoalCheck[];
  readonly goalSummary: GoalSummary;
  /** The factory as factories.yaml ships it, against our best setting that waits no longer, per rate. */
  readonly shipped: ShippedCheck[];
  readonly ratings: {
    readonly system: string;
    /** Mean error is a share of the ladder's rating range (see rating-error.ts). */
    readonly errorByGames: { games: number; players: number; meanError: number; withinTolerance: number }[];
    /** Share of players with at least 10 games within 2.5% of the rating range of their true rank. */
    readonly within2_5PercentAfter10Games: number;
    readonly playersWith10Games: number;
    readonly higherRatedWinRate: { hour: number; games: number; winRate: number }[];
  }[];
  /**
   * The cost of a ready check in waits, at the scenario's rate (steady arrivals): no check, and
   * every player accepting with probability 1 and 0.9, answering within READY_CHECK_ANSWER_MS.
   */
  readonly readyCheck: ReadyCheckPoint[];
  readonly cooperative: CooperativeSummary | undefined;
  /** The cooperative run again at the scenario's other arrival rates. */
  readonly cooperativeByRate: CooperativeSummary[];
}

export interface ReadyCheckPoint {
  /** undefined: no ready check. */
  readonly acceptance: number | undefined;
  readonly games: number;
  readonly brokenMatches: number;
  readonly meanWaitS: number;
  readonly p99WaitS: number;
}

/** Players answer a ready check within 5 s, uniformly. */
const READY_CHECK_ANSWER_MS = 5_000;

export interface SimulationInput {
  readonly scenario: Scenario;
  readonly config: CoordinatorConfig;
  /** Called between runs, for a progress line; no effect on results. */
  readonly progress?: (what: string) => void;
}

export function competitiveSettings(config: CoordinatorConfig, name: string): CompetitiveConfig {
  const template = config.templates.find((t) => t.name === name);
  if (template === undefined) throw new Error(`scenario factory: no template "${name}" in the config`);
  if (template.strategy.kind !== 'competitive') throw new Error(`scenario factory: "${name}" is not competitive`);
  return template.strategy.settings;
}

export function runSimulation(input: SimulationInput): SimulationReport {
  const { scenario, config } = input;
  const progress = input.progress ?? (() => {});
  const factory = competitiveSettings(config, scenario.factory);
  const sd = scenario.population.skill.sd;
  const population = createPopulation(scenario, streamSeed(scenario.seed, 1));
  const regionLocations = new Map(scenario.population.regions.map((r) => [r.name, { latitude: r.latitude, longitude: r.longitude }]));
  const locality: LocalityConfig = factory.locality ?? { ...DEFAULT_ROUTE, regionLocations };
  const durationMs = scenario.durationHours * 3_600_000;
  const base = { scenario, population, teams: factory.teams, teamSize: factory.teamSize, locality };

  const rated = runRatings(scenario, config);
  const matchedOn = rated.matchOn?.name ?? 'true skill';
  progress(`main run: ${scenario.arrivals.perSecond}/s for ${scenario.durationHours} h, matched on ${matchedOn}, rated by ${rated.systems.map((s) => s.name).join(', ')}`);
  const main = runCompetitive({
    ...base,
    ratings: rated.systems,
    matchOn: rated.matchOn,
    queue: new GamefactoryQueue(factory, streamSeed(scenario.seed, 2)),
    perSecond: scenario.arrivals.perSecond,
    durationMs,
    warmupMs: 60_000,
  });

  const frontier: FrontierPoint[] = [];
  const distributions: SimulationReport['distributions'] = [];
  const oneOnOne = factory.teams === 2 && factory.teamSize === 1;
  const points = operatingPoints(factory, sd).filter((p) => oneOnOne || isOurs(p.matcher));
  const shownAt = scenario.frontier.rates.reduce((best, r) =>
    Math.abs(Math.log(r / scenario.arrivals.perSecond)) < Math.abs(Math.log(best / scenario.arrivals.perSecond)) ? r : best,
  );
  const shownSettings = new Set(['window 0.05 sd +0.01 sd/s, any after 120 s, longer-waiter', '1 bucket (0.125 sd) per 20 s, max 10', 'lenience +0.2/s', 'oldest two']);
  for (const rate of scenario.frontier.rates) {
    const pointMs = (scenario.frontier.tickets / rate) * 1000;
    const runPoint = (point: OperatingPoint): FrontierPoint => {
      progress(`frontier: ${point.matcher}, ${point.setting}, ${rate}/s`);
      const log = runCompetitive({
        ...base,
        scenario: { ...scenario, arrivals: { ...scenario.arrivals, dailyCurve: undefined } },
        queue: point.make(streamSeed(scenario.seed, 3)),
        perSecond: rate,
        durationMs: pointMs,
        warmupMs: Math.min(60_000, pointMs / 10),
        steady: true,
      });
      // Rounded as the report prints them, so the goals compare what a reader compares: two
      // settings with the same waits (summed in another order) are not a last bit apart.
      const measured: FrontierPoint = roundReport({
        matcher: point.matcher,
        setting: point.setting,
        rate,
        games: log.games,
        meanWaitS: mean(log.waitsMs) / 1000,
        p99WaitS: quantile(log.waitsMs, 0.99) / 1000,
        meanGapSigma: mean(log.gapsSigma),
        p99GapSigma: quantile(log.gapsSigma, 0.99),
      });
      if (rate === shownAt && (shownSettings.has(point.setting) || point.matcher === AS_SHIPPED)) {
        distributions.push({
          matcher: point.matcher,
          waitsS: histogram(log.waitsMs.map((w) => w / 1000), 1, 60),
          gapsSigma: histogram(log.gapsSigma, 0.05, 40),
        });
      }
      return measured;
    };
    const measured = points.map(runPoint);
    frontier.push(...measured);
    // A wait target at each baseline's own waits: what a factory asking for those waits gets.
    for (const baseline of measured.filter((p) => !isOurs(p.matcher))) {
      for (const point of targetsAt(factory, baseline)) frontier.push(runPoint(point));
    }
  }

  const readyCheck = ([undefined, 1, 0.9] as const).map((acceptance): ReadyCheckPoint => {
    progress(`ready check: ${acceptance === undefined ? 'none' : `${acceptance * 100}% acceptance`} at ${scenario.arrivals.perSecond}/s`);
    const pointMs = (scenario.frontier.tickets / scenario.arrivals.perSecond) * 1000;
    const log = runCompetitive({
      ...base,
      scenario: { ...scenario, arrivals: { ...scenario.arrivals, dailyCurve: undefined } },
      queue: new GamefactoryQueue(factory, streamSeed(scenario.seed, 4)),
      perSecond: scenario.arrivals.perSecond,
      durationMs: pointMs,
      warmupMs: Math.min(60_000, pointMs / 10),
      steady: true,
      ...(acceptance !== undefined && { readyCheck: { acceptance, answerMs: READY_CHECK_ANSWER_MS } }),
    });
    return { acceptance, games: log.games, brokenMatches: log.brokenMatches, meanWaitS: mean(log.waitsMs) / 1000, p99WaitS: quantile(log.waitsMs, 0.99) / 1000 };
  });

  const ratings = main.ledgers.map((ledger) => {
    const errorByGames = ledger.error.byGames();
    return {
      system: ledger.system.name,
      errorByGames,
      within2_5PercentAfter10Games: ledger.error.withinAfter(10),
      playersWith10Games: errorByGames.filter((g) => g.games >= 10).reduce((s, g) => s + g.players, 0),
      // Hours of fewer than 100 decided games (the run's last instant) say nothing.
      higherRatedWinRate: ledger.higherRatedWins
        .filter((h) => h.games >= 100)
        .map((h) => ({ hour: h.hour, games: h.games, winRate: h.wins / h.games })),
    };
  });

  let cooperative: CooperativeSummary | undefined;
  if (scenario.cooperative) {
    progress(`cooperative: ${scenario.cooperative.factory}`);
    cooperative = runCooperative(scenario, config);
  }
  const cooperativeByRate = (scenario.cooperative?.alsoPerSecond ?? []).map((rate) => {
    progress(`cooperative: ${scenario.cooperative!.factory} at ${rate}/s`);
    return runCooperative(scenario, config, rate);
  });

  const goals = checkGoals(frontier);
  return roundReport({
    scenario: {
      seed: scenario.seed,
      factory: scenario.factory,
      perSecond: scenario.arrivals.perSecond,
      durationHours: scenario.durationHours,
      players: scenario.population.players,
    },
    main: {
      matchedOn,
      games: main.games,
      ticketsQueued: main.ticketsQueued,
      unmatched: main.unmatched,
      waitS: summarize(main.waitsMs.map((w) => w / 1000)),
      gapSigma: summarize(main.gapsSigma),
      latencyMs: summarize(main.latencyMs),
      latencyHistogram: histogram(main.latencyMs, 10, 40),
      favouriteCalibration: calibration(main.favourites),
      matchQuality: summarize(main.favourites.map((f) => f.matchQuality)),
    },
    frontier,
    distributions,
    goals,
    goalSummary: summarizeGoals(goals),
    shipped: checkShipped(frontier),
    ratings,
    readyCheck,
    cooperative,
    cooperativeByRate,
  });
}

/** Four decimals everywhere: the JSON reads cleanly and compares exactly between runs. */
function roundReport<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' ? round(v) : v))) as T;
}

/** Games by predicted favourite win probability (bins of 0.05 from 0.5), with how often the favourite won. */
function calibration(favourites: readonly { readonly probability: number; readonly won: boolean }[]): SimulationReport['main']['favouriteCalibration'] {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: 0.5 + i * 0.05, games: 0, predicted: 0, won: 0 }));
  for (const f of favourites) {
    const bin = bins[Math.min(9, Math.max(0, Math.floor((f.probability - 0.5) / 0.05)))]!;
    bin.games += 1;
    bin.predicted += f.probability;
    bin.won += f.won ? 1 : 0;
  }
  return bins
    .filter((b) => b.games > 0)
    .map((b) => ({ from: b.from, games: b.games, predicted: b.predicted / b.games, won: b.won / b.games }));
}
