import type { CompetitiveConfig } from '../../competitive/index.js';
import type { CoordinatorConfig } from '../../config/config.js';
import { runCompetitive } from '../../simulation/competitive-run.js';
import { DEFAULT_ROUTE } from '../../simulation/latency-model.js';
import { createPopulation } from '../../simulation/population.js';
import type { FrontierPoint } from '../../simulation/quality-goals.js';
import { GamefactoryQueue } from '../../simulation/queues/gamefactory-queue.js';
import { streamSeed } from '../../simulation/sampling.js';
import { scenarioSchema } from '../../simulation/scenario.js';
import { mean, quantile } from '../../simulation/statistics.js';

export interface PreviewOptions {
  /** Ticket arrivals per second to try. */
  readonly rates: readonly number[];
  /** Tickets per rate (the simulated time is tickets / rate). */
  readonly tickets: number;
  /** The game's score distribution: what its players' scores look like. */
  readonly scoreMean: number;
  readonly scoreSd: number;
  readonly seed: number;
}

/** A point of the simulation's gap/wait frontier, for one template (gaps in the population's sd). */
export type PreviewRow = Omit<FrontierPoint, 'matcher' | 'setting'> & { readonly template: string };

/**
 * What each competitive template would give before it goes live: the production matcher with the
 * template's batch, expansion and locality settings, run by the simulator in simulated time on a
 * seeded population (one region per configured one, or a single region), at a few arrival rates.
 */
export function previewCompetitive(config: CoordinatorConfig, options: PreviewOptions): PreviewRow[] {
  const rows: PreviewRow[] = [];
  for (const template of config.templates) {
    if (template.strategy.kind !== 'competitive') continue;
    const settings = template.strategy.settings;
    for (const rate of options.rates) rows.push({ template: template.name, rate, ...previewAt(settings, rate, options) });
  }
  return rows;
}

function previewAt(settings: CompetitiveConfig, rate: number, options: PreviewOptions): Omit<PreviewRow, 'template' | 'rate'> {
  const regions = previewRegions(settings);
  // Sessions of one game of a minute: the population only has to cover who plays at once.
  const scenario = scenarioSchema.parse({
    seed: options.seed,
    factory: 'preview',
    population: {
      players: Math.max(2000, Math.ceil(rate * 240)),
      skill: { mean: options.scoreMean, sd: options.scoreSd },
      performanceSd: options.scoreSd * 0.75,
      regions,
    },
    arrivals: { perSecond: rate },
    sessions: { gamesMean: 1, gameSeconds: 60 },
    durationHours: 1,
  });
  const durationMs = (options.tickets / rate) * 1000;
  const log = runCompetitive({
    scenario,
    population: createPopulation(scenario, streamSeed(options.seed, 1)),
    queue: new GamefactoryQueue(settings, streamSeed(options.seed, 2)),
    perSecond: rate,
    durationMs,
    teams: settings.teams,
    teamSize: settings.teamSize,
    locality: settings.locality ?? { ...DEFAULT_ROUTE, regionLocations: new Map(regions.map((r) => [r.name, r])) },
    warmupMs: Math.min(60_000, durationMs / 10),
  });
  return {
    games: log.games,
    meanWaitS: mean(log.waitsMs) / 1000,
    p99WaitS: quantile(log.waitsMs, 0.99) / 1000,
    meanGapSigma: mean(log.gapsSigma),
    p99GapSigma: quantile(log.gapsSigma, 0.99),
  };
}

/**
 * Where the simulated players play from. Located regions (locality) keep their places; configured
 * regions without locations all sit at one point, so every ticket measures the same latency to
 * each (the matcher refuses latencies to a region the template does not name); with no regions at
 * all, one region stands for everywhere.
 */
function previewRegions(settings: CompetitiveConfig): { name: string; weight: number; latitude: number; longitude: number }[] {
  const located = settings.locality ? [...settings.locality.regionLocations] : [];
  if (located.length > 0) return located.map(([name, at]) => ({ name, weight: 1, latitude: at.latitude, longitude: at.longitude }));
  if (settings.regions.length > 0) return settings.regions.map((name) => ({ name, weight: 1, latitude: 0, longitude: 0 }));
  return [{ name: 'everywhere', weight: 1, latitude: 0, longitude: 0 }];
}
