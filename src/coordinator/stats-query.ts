import type { AttributeSet, ValueKey } from '../attributes/attribute-value.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';
import type { FactoryRegistry } from '../factories/factory-registry.js';
import type { FactoryRuntime } from './factory-runtime.js';

export interface StatsQuery {
  /** One factory by name; or, when empty, every factory of `template` whose partition matches. */
  readonly factory: string;
  readonly template: string;
  readonly partition: AttributeSet;
  readonly predicates: readonly (readonly [key: string, value: ValueKey])[];
  readonly mode: 'all' | 'any' | 'none';
}

export interface StatsAnswer {
  factories: number;
  games: number;
  openGames: number;
  players: number;
  openSlots: number;
  minDurationMs: number;
  maxDurationMs: number;
  averageDurationMs: number;
  openGamesByOpenSlots: number[];
  waitingTickets: number;
  competitive: { gamesFormed: number; meanGapSigma: number; p99GapSigma: number; scoreMean: number; scoreStdDev: number } | undefined;
  /** Competitive factories: open backfill requests, the seats they ask for, requests filled since the start. */
  backfill?: { openRequests: number; openSeats: number; filled: number };
}

/** The answer over no factory (a cluster node that runs none of a query's factories contributes it). */
export function emptyStats(): StatsAnswer {
  return {
    factories: 0,
    games: 0,
    openGames: 0,
    players: 0,
    openSlots: 0,
    minDurationMs: 0,
    maxDurationMs: 0,
    averageDurationMs: 0,
    openGamesByOpenSlots: [],
    waitingTickets: 0,
    competitive: undefined,
  };
}

/**
 * QueryStats (Battle.net talk, "Indexed stats too"): the factories' own indexes answer how popular
 * a choice is. Cost: per factory involved, the size of the smallest set involved.
 */
export function queryStats(
  registry: FactoryRegistry<FactoryRuntime>,
  /** Tickets of a factory waiting for a slot (in creations queued there). */
  queuedIn: (factory: string) => number,
  query: StatsQuery,
  now: number,
  /** A factory's backfill requests, where they are kept. */
  backfillIn?: (factory: string) => { requests: number; seats: number; filled: number },
): StatsAnswer {
  let names: string[];
  if (query.factory !== '') {
    if (!registry.get(query.factory)) throw new MatchmakingError('NOT_FOUND', `factory: "${query.factory}" is not live`);
    names = [query.factory];
  } else {
    const template = registry.resolveTemplate(query.template);
    for (const key of query.partition.keys()) {
      if (!template.axes.some((a) => a.key === key)) {
        throw invalidArgument(`partition_attributes[${key}]`, `not an axis of template "${template.name}"`);
      }
    }
    names = [...registry.names()].filter((name) => {
      const identity = registry.identity(name)!;
      if (identity.template !== template) return false;
      for (const [key, value] of query.partition) if (identity.partition.get(key) !== value) return false;
      return true;
    });
  }
  const answer: StatsAnswer = { ...emptyStats(), factories: names.length };
  let totalDuration = 0;
  for (const name of names) {
    const runtime = registry.get(name)!;
    answer.waitingTickets += runtime.waiting() + queuedIn(name);
    for (const [key] of query.predicates) {
      if (!runtime.identity.template.matchableKeys.includes(key)) {
        throw invalidArgument(`predicates[${key}]`, `not a matchable key of ${name}`);
      }
    }
    const quality = runtime.competitiveStats();
    if (quality && backfillIn) {
      const open = backfillIn(name);
      const b = (answer.backfill ??= { openRequests: 0, openSeats: 0, filled: 0 });
      b.openRequests += open.requests;
      b.openSeats += open.seats;
      b.filled += open.filled;
    }
    if (quality) {
      // Over several factories: means weighted by games formed, the worst p99.
      const c = (answer.competitive ??= { gamesFormed: 0, meanGapSigma: 0, p99GapSigma: 0, scoreMean: 0, scoreStdDev: 0 });
      const total = c.gamesFormed + quality.gamesFormed;
      const weigh = (a: number, b: number) => (total === 0 ? 0 : (a * c.gamesFormed + b * quality.gamesFormed) / total);
      c.meanGapSigma = weigh(c.meanGapSigma, quality.meanGapInSigma);
      c.scoreMean = weigh(c.scoreMean, quality.scoreMean);
      c.scoreStdDev = weigh(c.scoreStdDev, quality.scoreStdDev);
      c.p99GapSigma = Math.max(c.p99GapSigma, quality.p99GapInSigma);
      c.gamesFormed = total;
    }
    const stats = runtime.stats(query.predicates, query.mode, now);
    if (!stats || stats.games === 0) continue;
    answer.minDurationMs = answer.games === 0 ? stats.minDurationMs : Math.min(answer.minDurationMs, stats.minDurationMs);
    answer.maxDurationMs = Math.max(answer.maxDurationMs, stats.maxDurationMs);
    totalDuration += stats.averageDurationMs * stats.games;
    answer.games += stats.games;
    answer.openGames += stats.openGames;
    answer.players += stats.players;
    answer.openSlots += stats.openSlots;
    stats.openGamesByOpenSlots.forEach((count, i) => {
      answer.openGamesByOpenSlots[i] = (answer.openGamesByOpenSlots[i] ?? 0) + count;
    });
  }
  answer.averageDurationMs = answer.games === 0 ? 0 : Math.round(totalDuration / answer.games);
  return answer;
}
