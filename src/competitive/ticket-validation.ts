import { DEFAULT_PLAYER_LIMITS, type CompetitiveConfig, type CompetitivePlayer, type CompetitiveTicket } from './competitive-config.js';

/**
 * Scores are opaque but bounded: |score| <= 1e9 covers every rating scale in use (Elo, Glicko,
 * TrueSkill, MMR) with room to spare, and keeps squares and sums of scores far from overflow, so
 * no ticket can make a factory's statistics infinite (a fuzzed score of 1e308 once did).
 */
export const MAX_ABS_SCORE = 1e9;

/**
 * Pure validation of one ticket against a factory's config. Returns an error message that names
 * the offending field with the wire names of proto/gamefactory/v1/matchmaker.proto (so the
 * transport can pass it to the client as is), or undefined when the ticket is acceptable.
 * Cost is in the size of the ticket, never in the size of the pool.
 */
export function validateTicket(config: CompetitiveConfig, ticket: CompetitiveTicket): string | undefined {
  if (ticket.ticketId.length === 0) return 'ticket_id: must not be empty';
  const party = ticket.players;
  if (party.length === 0) return 'party: must have at least one player';
  if (party.length > config.teamSize) {
    return `party: ${party.length} players do not fit a team of ${config.teamSize}`;
  }
  // Index loops and no callbacks: add() validates every ticket, and iterator, entry and closure
  // objects per ticket were most of a large batch's garbage (young-generation collections then
  // copy everything a batch holds live, a cost that grows with the batch).
  for (let i = 0; i < party.length; i++) {
    const playerId = (party[i] as CompetitivePlayer).playerId;
    if (playerId.length === 0) return `party[${i}].player_id: must not be empty`;
    // A party is at most one team, so a quadratic scan is cheaper than building a set per ticket.
    for (let earlier = 0; earlier < i; earlier++) {
      if ((party[earlier] as CompetitivePlayer).playerId === playerId) {
        return `party[${i}].player_id: same player as party[${earlier}]`;
      }
    }
    const score = (party[i] as CompetitivePlayer).score;
    if (!Number.isFinite(score)) return `party[${i}].score: must be a finite number`;
    if (score > MAX_ABS_SCORE || score < -MAX_ABS_SCORE) return `party[${i}].score: must be within ±1e9`;
  }
  if (!Number.isFinite(ticket.enqueuedAt)) return 'enqueued_at: must be a finite number';
  const limits = config.playerLimits ?? DEFAULT_PLAYER_LIMITS;
  const budget = outside('wait_budget_ms', ticket.waitBudgetMs, limits.waitBudgetMs);
  if (budget !== undefined) return budget;
  const ceiling = outside('max_latency_ms', ticket.maxLatencyMs, limits.maxLatencyMs);
  if (ceiling !== undefined) return ceiling;

  // With no regions configured latency is ignored altogether, so measurements are not checked.
  if (config.regions.length > 0 && ticket.latencyMs.size > 0) {
    const problem = latencyProblem(config.regions, ticket.latencyMs);
    if (problem !== undefined) return problem;
  }

  const preferred = ticket.preferredMaps;
  const vetoed = ticket.vetoedMaps;
  for (let i = 0; i < preferred.length; i++) {
    const map = preferred[i] as string;
    if (!config.maps.includes(map)) return `preferred_maps[${i}]: unknown map`;
    if (vetoed.includes(map)) return `preferred_maps[${i}]: ${map} is also vetoed`;
  }
  for (let i = 0; i < vetoed.length; i++) {
    if (!config.maps.includes(vetoed[i] as string)) return `vetoed_maps[${i}]: unknown map`;
  }
  // "There are always more maps possible than can be vetoed" (Battle.net talk, "StarCraft II"):
  // a party that vetoes every map could never be matched, so it is refused up front.
  if (config.maps.length > 0 && vetoesEvery(config.maps, vetoed)) return 'vetoed_maps: every map is vetoed';
  return undefined;
}

/** A ticket's own limit, when it gives one, must sit within the factory's bounds. */
function outside(field: string, value: number | undefined, bounds: { readonly min: number; readonly max: number }): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value)) return `${field}: must be a finite number`;
  if (value < bounds.min || value > bounds.max) return `${field}: ${value} is outside this factory's bounds ${bounds.min}..${bounds.max}`;
  return undefined;
}

/** The first bad measurement in the map's insertion order, as the for-of over entries found it. */
function latencyProblem(regions: readonly string[], latencyMs: ReadonlyMap<string, number>): string | undefined {
  for (const region of latencyMs.keys()) {
    if (!regions.includes(region)) return `latencies_ms[${region}]: unknown region`;
    const ms = latencyMs.get(region) as number;
    if (!(Number.isFinite(ms) && ms >= 0)) return `latencies_ms[${region}]: must be a non-negative finite number`;
  }
  return undefined;
}

function vetoesEvery(maps: readonly string[], vetoed: readonly string[]): boolean {
  for (let i = 0; i < maps.length; i++) if (!vetoed.includes(maps[i] as string)) return false;
  return true;
}
