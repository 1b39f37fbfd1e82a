import { ARRIVAL_LOG_FORMAT, ARRIVAL_LOG_VERSION, type ArrivalEvent, type ArrivalLog } from '../replay/arrival-log.js';
import type { CoordinatorConfig } from '../config/config.js';
import { runCompetitive } from './competitive-run.js';
import { DEFAULT_ROUTE } from './latency-model.js';
import { createPopulation } from './population.js';
import { GamefactoryQueue } from './queues/gamefactory-queue.js';
import type { QueuedTicket, SimMatch, SimulatedQueue } from './queues/simulated-queue.js';
import { runRatings } from './rating-systems.js';
import { streamSeed } from './sampling.js';
import type { Scenario } from './scenario.js';
import { competitiveSettings } from './simulation.js';

/**
 * The scenario's day (its first `hours`) as a recording in the format a coordinator writes with
 * --record (src/replay/arrival-log.ts): every ticket as the factory's matcher saw it (matching
 * scores, not true skills), and every game the configured factory formed, so `gamefactory replay`
 * can run the same arrivals through other configurations and hold them against this run.
 * Arrivals are open loop in a replay: the simulator's players re-queue after their games, a replay
 * keeps their recorded arrival times whatever another configuration would have done.
 */
export function exportArrivals(scenario: Scenario, config: CoordinatorConfig, hours: number): ArrivalLog {
  const factory = competitiveSettings(config, scenario.factory);
  const population = createPopulation(scenario, streamSeed(scenario.seed, 1));
  const regionLocations = new Map(scenario.population.regions.map((r) => [r.name, { latitude: r.latitude, longitude: r.longitude }]));
  const locality = factory.locality ?? { ...DEFAULT_ROUTE, regionLocations };
  const rated = runRatings(scenario, config);
  const events: ArrivalEvent[] = [];
  const queue = new RecordingQueue(new GamefactoryQueue(factory, streamSeed(scenario.seed, 2)), scenario.factory, factory.regions, events);
  runCompetitive({
    scenario,
    population,
    teams: factory.teams,
    teamSize: factory.teamSize,
    locality,
    ratings: rated.systems,
    matchOn: rated.matchOn,
    queue,
    perSecond: scenario.arrivals.perSecond,
    durationMs: hours * 3_600_000,
  });
  // Arrivals are made per check, session starts before game ends: put them in time order (a sort
  // is stable, so a game stays after the arrivals of its check).
  events.sort((a, b) => a.at - b.at);
  return {
    header: {
      format: ARRIVAL_LOG_FORMAT,
      version: ARRIVAL_LOG_VERSION,
      source: `gamefactory simulate: scenario seed ${scenario.seed}, factory ${scenario.factory}, first ${hours} h`,
    },
    events,
  };
}

/** Passes everything on to the real queue and writes down what went in and what came out. */
class RecordingQueue implements SimulatedQueue {
  readonly name: string;
  constructor(
    private readonly inner: SimulatedQueue,
    private readonly template: string,
    private readonly regions: readonly string[],
    private readonly events: ArrivalEvent[],
  ) {
    this.name = inner.name;
  }

  arrive(t: QueuedTicket): void {
    const latencies: Record<string, number> = {};
    for (const region of this.regions) {
      const ms = t.latencyMs.get(region);
      if (ms !== undefined) latencies[region] = Math.round(ms * 10) / 10;
    }
    this.events.push({
      at: t.enqueuedAt,
      arrive: {
        ticket: t.id,
        template: this.template,
        partition: {},
        party: t.players.map((p, i) => ({ player: p.id, score: t.playerScores[i] as number })),
        ...(t.uncertainty > 0 && { uncertainty: t.uncertainty }),
        latencies,
        location: t.location,
        soft: { language: t.language },
        preferredMaps: [],
        vetoedMaps: [],
      },
    });
    this.inner.arrive(t);
  }

  check(now: number): SimMatch[] {
    const matches = this.inner.check(now);
    for (const m of matches) this.events.push({ at: now, matched: m.teams.flat() });
    return matches;
  }

  get waiting(): number {
    return this.inner.waiting;
  }
}
