import type { CompetitiveConfig, CompetitiveTicket, ExpansionStep } from '../../src/competitive/index.js';
import { CompetitiveMatcher, seededRandom } from '../../src/competitive/index.js';

export const ANY = Infinity;

export function config(overrides: Partial<CompetitiveConfig> = {}): CompetitiveConfig {
  return {
    teams: 2,
    teamSize: 1,
    batch: { maxTickets: 100, intervalMs: 1000 },
    expansion: [{ afterMs: 0, maxScoreGap: ANY, maxLatencyMs: ANY }],
    hillClimbBudgetMs: 50,
    teamScore: 'mean',
    maps: [],
    regions: [],
    ...overrides,
  };
}

export function steps(...list: [afterMs: number, maxScoreGap: number, maxLatencyMs?: number][]): ExpansionStep[] {
  return list.map(([afterMs, maxScoreGap, maxLatencyMs]) => ({ afterMs, maxScoreGap, maxLatencyMs: maxLatencyMs ?? ANY }));
}

export interface TicketOptions {
  enqueuedAt?: number;
  latency?: Record<string, number>;
  preferred?: string[];
  vetoed?: string[];
}

/** A solo ticket whose id is also its player's id. */
export function solo(id: string, score: number, options: TicketOptions = {}): CompetitiveTicket {
  return party(id, [score], options);
}

/** A party ticket; players are `${id}.0`, `${id}.1`, ... */
export function party(id: string, scores: number[], options: TicketOptions = {}): CompetitiveTicket {
  return {
    ticketId: id,
    players: scores.map((score, i) => ({ playerId: scores.length === 1 ? id : `${id}.${i}`, score })),
    enqueuedAt: options.enqueuedAt ?? 0,
    latencyMs: new Map(Object.entries(options.latency ?? {})),
    preferredMaps: options.preferred ?? [],
    vetoedMaps: options.vetoed ?? [],
  };
}

/** A clock that never runs out of budget unless told to: each call advances by `step` ms. */
export function steppingClock(step = 0): () => number {
  let t = 0;
  return () => (t += step);
}

export function matcher(c: CompetitiveConfig, seed = 1, clockStep = 0): CompetitiveMatcher {
  return new CompetitiveMatcher(c, { now: steppingClock(clockStep), random: seededRandom(seed) });
}

/** Pairs as sorted [lowId, highId] strings, order-independent. */
export function pairsOf(games: { teams: string[][] }[]): string[] {
  return games.map((g) => g.teams.flat().sort().join('+')).sort();
}
