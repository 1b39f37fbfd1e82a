import { CompetitiveMatcher, seededRandom, type CompetitiveConfig, type CompetitiveTicket } from '../competitive/index.js';
import type { CoordinatorConfig } from '../config/config.js';
import { histogram, summarize, type Summary } from '../simulation/statistics.js';
import { factoryKey, type ArrivalLog, type RecordedArrival } from './arrival-log.js';

/**
 * Recorded arrivals through the real competitive matchers in simulated time (issue: "tune on your
 * own traffic"): one CompetitiveMatcher per factory the arrivals select, built from a
 * configuration's template, fed each arrival and cancel at its recorded time, and asked for a batch
 * whenever it says one is due, at that very moment (as the coordinator's timer does), so a wait is
 * batch time minus arrival time. The hill-climb's clock is frozen: a replay measures quality, not
 * this machine's speed. Cooperative templates are not replayed (their matching is immediate; what a
 * wait there depends on is game servers' slots, which a recording of tickets does not hold).
 */
export interface ReplaySummary {
  readonly tickets: number;
  readonly matched: number;
  /** Still waiting when the replay ended (the last event plus the longest wait budget). */
  readonly unmatched: number;
  readonly cancelled: number;
  readonly waitS: Summary;
  readonly gapSigma: Summary;
  readonly favouriteWinProbability: Summary;
  readonly matchQuality: Summary;
  readonly waitsHistogram: { from: number; count: number }[];
  readonly gapsHistogram: { from: number; count: number }[];
}

export interface ReplayResult {
  /** What produced these figures: a configuration file, or "recorded run". */
  readonly label: string;
  readonly overall: ReplaySummary;
  readonly factories: { readonly factory: string; readonly summary: ReplaySummary }[];
  /** Arrivals no factory of this configuration could take, by reason (first seen, with counts). */
  readonly refused: { readonly reason: string; readonly tickets: number }[];
}

/** Waits and quality of one factory's (or the whole replay's) games. */
class Tally {
  tickets = 0;
  cancelled = 0;
  matched = 0;
  readonly waitsS: number[] = [];
  readonly gaps: number[] = [];
  readonly favourites: number[] = [];
  readonly qualities: number[] = [];

  summary(unmatched: number): ReplaySummary {
    return {
      tickets: this.tickets,
      matched: this.matched,
      unmatched,
      cancelled: this.cancelled,
      waitS: summarize(this.waitsS),
      gapSigma: summarize(this.gaps),
      favouriteWinProbability: summarize(this.favourites),
      matchQuality: summarize(this.qualities),
      waitsHistogram: histogram(this.waitsS, 1, 60),
      gapsHistogram: histogram(this.gaps, 0.05, 40),
    };
  }
}

export function replayArrivals(log: ArrivalLog, config: CoordinatorConfig, label: string, seed = 1): ReplayResult {
  const factories = new Map<string, { matcher: CompetitiveMatcher; tally: Tally }>();
  const ticketFactory = new Map<string, string>();
  const refused = new Map<string, number>();
  const overall = new Tally();
  let longestBudget = 0;

  const factoryFor = (arrive: RecordedArrival): { matcher: CompetitiveMatcher; tally: Tally } | string => {
    const key = factoryKey(arrive);
    const known = factories.get(key);
    if (known !== undefined) return known;
    const template = config.templates.find((t) => t.name === arrive.template);
    if (template === undefined) return `template "${arrive.template}" is not in this configuration`;
    if (template.strategy.kind !== 'competitive') return `template "${arrive.template}" is cooperative (not replayed)`;
    const settings: CompetitiveConfig = template.strategy.settings;
    longestBudget = Math.max(longestBudget, budgetOf(settings));
    const created = { matcher: new CompetitiveMatcher(settings, { now: () => 0, random: seededRandom(seed) }), tally: new Tally() };
    factories.set(key, created);
    return created;
  };

  /** Runs every batch due up to `until`, each at its due time, earliest first. */
  const runDue = (until: number): void => {
    for (;;) {
      let next: { matcher: CompetitiveMatcher; tally: Tally } | undefined;
      let at = Infinity;
      for (const f of factories.values()) {
        const due = f.matcher.nextBatchAt();
        if (due !== undefined && due <= until && due < at) {
          at = due;
          next = f;
        }
      }
      if (next === undefined) return;
      for (const game of next.matcher.formGames(at)) {
        for (const tally of [next.tally, overall]) {
          tally.matched += game.quality.waitsMs.length;
          for (const w of game.quality.waitsMs) tally.waitsS.push(w / 1000);
          tally.gaps.push(game.quality.gapInSigma);
          tally.favourites.push(game.quality.favouriteWinProbability);
          tally.qualities.push(game.quality.matchQuality);
        }
        for (const id of game.teams.flat()) ticketFactory.delete(id);
      }
    }
  };

  let lastAt = 0;
  for (const event of log.events) {
    runDue(event.at);
    lastAt = event.at;
    if ('arrive' in event) {
      const f = factoryFor(event.arrive);
      if (typeof f === 'string') {
        refused.set(f, (refused.get(f) ?? 0) + 1);
        continue;
      }
      try {
        f.matcher.add(toTicket(event.arrive, event.at));
      } catch (error) {
        const reason = (error as Error).message;
        refused.set(reason, (refused.get(reason) ?? 0) + 1);
        continue;
      }
      f.tally.tickets += 1;
      overall.tickets += 1;
      ticketFactory.set(event.arrive.ticket, factoryKey(event.arrive));
    } else if ('cancel' in event) {
      const key = ticketFactory.get(event.cancel);
      const f = key === undefined ? undefined : factories.get(key);
      if (f !== undefined && f.matcher.remove(event.cancel)) {
        f.tally.cancelled += 1;
        overall.cancelled += 1;
        ticketFactory.delete(event.cancel);
      }
    }
  }
  // Whoever still waits gets until the longest budget any factory gives after the last arrival.
  runDue(lastAt + longestBudget);

  let unmatched = 0;
  const perFactory = [...factories.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([factory, f]) => {
      unmatched += f.matcher.size;
      return { factory, summary: f.tally.summary(f.matcher.size) };
    });
  return {
    label,
    overall: overall.summary(unmatched),
    factories: perFactory,
    refused: [...refused.entries()].map(([reason, tickets]) => ({ reason, tickets })),
  };
}

/**
 * The recorded run's own figures, from its `matched` events: waits only (a recording does not keep
 * the games' gaps; the replay with the same configuration computes them).
 */
export function recordedRun(log: ArrivalLog): ReplayResult | undefined {
  const arrivedAt = new Map<string, number>();
  const tally = new Tally();
  let any = false;
  for (const event of log.events) {
    if ('arrive' in event) {
      arrivedAt.set(event.arrive.ticket, event.at);
      tally.tickets += 1;
    } else if ('cancel' in event) {
      if (arrivedAt.delete(event.cancel)) tally.cancelled += 1;
    } else {
      any = true;
      for (const id of event.matched) {
        const at = arrivedAt.get(id);
        if (at === undefined) continue;
        arrivedAt.delete(id);
        tally.matched += 1;
        tally.waitsS.push((event.at - at) / 1000);
      }
    }
  }
  if (!any) return undefined;
  return { label: 'recorded run', overall: tally.summary(arrivedAt.size), factories: [], refused: [] };
}

/** The longest a ticket of this factory may wait before any partner will do. */
function budgetOf(settings: CompetitiveConfig): number {
  const limit = settings.playerLimits?.waitBudgetMs.max ?? 600_000;
  const target = settings.target?.waitP99Ms;
  const lastStep = settings.expansion[settings.expansion.length - 1]?.afterMs ?? 0;
  return Math.min(limit, Math.max(target === undefined ? 0 : 2 * target, lastStep + 60_000));
}

function toTicket(a: RecordedArrival, at: number): CompetitiveTicket {
  return {
    ticketId: a.ticket,
    players: a.party.map((p) => ({ playerId: p.player, score: p.score })),
    enqueuedAt: at,
    latencyMs: new Map(Object.entries(a.latencies)),
    preferredMaps: a.preferredMaps,
    vetoedMaps: a.vetoedMaps,
    ...(a.location !== undefined && { location: a.location }),
    ...(Object.keys(a.soft).length > 0 && { softAttributes: new Map(Object.entries(a.soft)) }),
    ...(a.uncertainty !== undefined && a.uncertainty > 0 && { scoreUncertainty: a.uncertainty }),
    ...(a.waitBudgetMs !== undefined && { waitBudgetMs: a.waitBudgetMs }),
    ...(a.maxLatencyMs !== undefined && { maxLatencyMs: a.maxLatencyMs }),
  };
}
