import { toBatchEntry, type BatchEntry, type ScoreWindows, type SortedBatch } from '../batch-entry.js';
import type { CompetitiveConfig, CompetitiveTicket } from '../competitive-config.js';
import type { ExpansionSchedule } from '../expansion-schedule.js';
import type { GameEvaluation, GameObjective } from '../game-objective.js';
import { openSeats, type PartialGame } from './partial-game.js';

/** What a search reads besides the pool: the factory's rules at the batch's time. */
export interface FillContext {
  readonly config: Pick<CompetitiveConfig, 'teams' | 'teamSize' | 'maps'>;
  readonly schedule: ExpansionSchedule;
  /** A wait target's windows, when the factory has one (else the schedule's steps give them). */
  readonly windows: ScoreWindows | undefined;
  /** The batch's objective: the same costs and viability a new game of the batch is judged by. */
  readonly objective: GameObjective;
  readonly now: number;
}

/** A fill found: the newcomers of each team as positions in the sorted pool, and the whole game's evaluation. */
export interface FoundFill {
  readonly newcomers: readonly (readonly number[])[];
  readonly evaluation: GameEvaluation;
}

/** Pool tickets looked at around each score a team would want: the nearest this many on either side. */
const CANDIDATES_PER_TARGET = 32;
/** Positions scanned per candidate wanted, at most (see nearest). */
const SCAN_PER_CANDIDATE = 8;
/** Rounds of swaps after the greedy fill; each keeps the best single change, and most stop after one or two. */
const IMPROVEMENT_ROUNDS = 16;

/**
 * The best fill of a partial game from the pool, by the batch's own objective over the WHOLE game
 * after the fill (team balance, skill spread, latency to the game's region, map, soft
 * preferences), never over the newcomers alone. The players who remain stand in the game as
 * one-player entries whose window is the request's (widened by its wait as a ticket's is) plus
 * their own spread, so a newcomer fits when it lies within that window of the game's range and the
 * game lies within its own window; their region and map are the game's, so a newcomer with no
 * latency to that region under its cap, or who vetoed the map, makes the game not viable.
 *
 * Candidates are the pool tickets nearest to the score that would balance each team with open
 * seats (and nearest the remaining players' mean), at most CANDIDATES_PER_TARGET each side, found
 * by binary search in the sorted pool: O(log n + teams x CANDIDATES) whatever the pool's size. The
 * seats are filled greedily, then single replacements and swaps between teams are kept while they
 * lower the cost. Undefined when no viable fill is found (the request waits for the next batch).
 */
export function searchFill(game: PartialGame, sorted: SortedBatch, taken: Uint8Array, ctx: FillContext): FoundFill | undefined {
  const { teams, teamSize } = ctx.config;
  const open = openSeats(game, teams, teamSize);
  const remaining = remainingEntries(game, ctx);
  const candidates = gatherCandidates(game, open, sorted, taken, ctx.config.teams);
  if (candidates.length === 0) return undefined;
  const entries = new Map<number, BatchEntry>();
  const entryAt = (k: number): BatchEntry => {
    let entry = entries.get(k);
    if (entry === undefined) entries.set(k, (entry = sorted.entry(k)));
    return entry;
  };
  const newcomers: number[][] = Array.from({ length: teams }, () => []);
  const used = new Set<number>();
  const left = [...open];
  const teamsOf = (): BatchEntry[][] => remaining.map((team, t) => [...team, ...(newcomers[t] as number[]).map(entryAt)]);
  const cost = (): number => ctx.objective.evaluate(teamsOf()).cost;

  // Greedy: the one placement that costs least, until every seat is taken or nothing fits.
  for (;;) {
    let best: { team: number; k: number; cost: number } | undefined;
    for (let t = 0; t < teams; t++) {
      const seats = left[t] as number;
      if (seats <= 0) continue;
      const team = newcomers[t] as number[];
      for (const k of candidates) {
        if (used.has(k) || (sorted.size[k] as number) > seats) continue;
        team.push(k);
        const c = cost();
        team.pop();
        if (best === undefined || c < best.cost) best = { team: t, k, cost: c };
      }
    }
    if (best === undefined) break;
    (newcomers[best.team] as number[]).push(best.k);
    used.add(best.k);
    left[best.team] = (left[best.team] as number) - (sorted.size[best.k] as number);
  }
  if (left.some((seats) => seats !== 0)) return undefined;

  // Improve: replace a newcomer by an unused candidate of its party size, or swap two newcomers of
  // the same size between teams; keep the best change of each round.
  let current = cost();
  for (let round = 0; round < IMPROVEMENT_ROUNDS; round++) {
    let best: { apply: () => void; cost: number } | undefined;
    for (let t = 0; t < teams; t++) {
      const team = newcomers[t] as number[];
      for (let i = 0; i < team.length; i++) {
        const k = team[i] as number;
        const size = sorted.size[k];
        for (const c of candidates) {
          if (used.has(c) || sorted.size[c] !== size) continue;
          team[i] = c;
          const trial = cost();
          team[i] = k;
          if (trial < current - 1e-12 && (best === undefined || trial < best.cost)) {
            best = { cost: trial, apply: () => { team[i] = c; used.delete(k); used.add(c); } };
          }
        }
        for (let u = t + 1; u < teams; u++) {
          const other = newcomers[u] as number[];
          for (let j = 0; j < other.length; j++) {
            const m = other[j] as number;
            if (sorted.size[m] !== size) continue;
            team[i] = m;
            other[j] = k;
            const trial = cost();
            team[i] = k;
            other[j] = m;
            if (trial < current - 1e-12 && (best === undefined || trial < best.cost)) {
              best = { cost: trial, apply: () => { team[i] = m; other[j] = k; } };
            }
          }
        }
      }
    }
    if (best === undefined) break;
    best.apply();
    current = best.cost;
  }
  const evaluation = ctx.objective.evaluate(teamsOf());
  return evaluation.viable ? { newcomers, evaluation } : undefined;
}

/**
 * The remaining players as one-player entries by team. Their window is the request's, from its
 * wait, plus the spread of their own scores: the game was formed (or widened) before, and what
 * the request's window bounds is how far a newcomer may stretch the game's range, not the range
 * the game already has.
 */
export function remainingEntries(game: PartialGame, ctx: Pick<FillContext, 'config' | 'schedule' | 'windows' | 'now'>): BatchEntry[][] {
  let low = Infinity;
  let high = -Infinity;
  for (const p of game.players) {
    low = Math.min(low, p.score);
    high = Math.max(high, p.score);
  }
  const spread = game.players.length === 0 ? 0 : high - low;
  const latencyMs: ReadonlyMap<string, number> = game.region === undefined ? NO_LATENCIES : new Map([[game.region, 0]]);
  const map = game.map;
  const vetoedMaps = map === undefined ? NO_MAPS : ctx.config.maps.filter((m) => m !== map);
  const teams: BatchEntry[][] = Array.from({ length: ctx.config.teams }, () => []);
  for (const player of game.players) {
    const ticket: CompetitiveTicket = {
      ticketId: '',
      players: [{ playerId: player.playerId, score: player.score }],
      enqueuedAt: game.enqueuedAt,
      latencyMs,
      preferredMaps: NO_MAPS,
      vetoedMaps,
      ...(player.softAttributes !== undefined && { softAttributes: player.softAttributes }),
    };
    const entry = toBatchEntry(ticket, ctx.schedule, ctx.now, 0, player.score, ctx.windows);
    (teams[player.team] as BatchEntry[]).push({ ...entry, maxScoreGap: entry.maxScoreGap + spread });
  }
  return teams;
}

/**
 * Positions of the sorted pool worth trying: around each team's balancing score (the newcomers'
 * mean that would bring its mean to the mean of the full teams, or of everyone remaining) and around
 * the remaining players' mean; untaken, and small enough for some team's open seats.
 */
function gatherCandidates(game: PartialGame, open: readonly number[], sorted: SortedBatch, taken: Uint8Array, teams: number): number[] {
  const sums = new Array<number>(teams).fill(0);
  const counts = new Array<number>(teams).fill(0);
  let total = 0;
  for (const p of game.players) {
    sums[p.team] = (sums[p.team] as number) + p.score;
    counts[p.team] = (counts[p.team] as number) + 1;
    total += p.score;
  }
  const everyone = game.players.length === 0 ? 0 : total / game.players.length;
  let fullSum = 0;
  let fullTeams = 0;
  for (let t = 0; t < teams; t++) {
    if ((open[t] as number) > 0 || (counts[t] as number) === 0) continue;
    fullSum += (sums[t] as number) / (counts[t] as number);
    fullTeams += 1;
  }
  const target = fullTeams > 0 ? fullSum / fullTeams : everyone;
  const maxOpen = Math.max(...open);
  const targets = [everyone];
  for (let t = 0; t < teams; t++) {
    const seats = open[t] as number;
    if (seats > 0) targets.push(((counts[t] as number) + seats) * target / seats - (sums[t] as number) / seats);
  }
  const picked = new Set<number>();
  for (const score of targets) nearest(sorted, score, taken, maxOpen, picked);
  return [...picked].sort((a, b) => a - b);
}

/** Adds the CANDIDATES_PER_TARGET usable positions nearest `score` on each side. */
function nearest(sorted: SortedBatch, score: number, taken: Uint8Array, maxSize: number, into: Set<number>): void {
  const scores = sorted.score;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((scores[mid] as number) < score) lo = mid + 1;
    else hi = mid;
  }
  const usable = (k: number) => taken[k] === 0 && (sorted.size[k] as number) <= maxSize;
  // Positions skipped (taken by an earlier fill, or parties too large) count too, so a scan stays bounded.
  const reach = SCAN_PER_CANDIDATE * CANDIDATES_PER_TARGET;
  for (let k = lo, n = 0; k < sorted.length && n < CANDIDATES_PER_TARGET && k - lo < reach; k++) if (usable(k)) (into.add(k), n++);
  for (let k = lo - 1, n = 0; k >= 0 && n < CANDIDATES_PER_TARGET && lo - k <= reach; k--) if (usable(k)) (into.add(k), n++);
}

const NO_LATENCIES: ReadonlyMap<string, number> = new Map();
const NO_MAPS: readonly string[] = Object.freeze([]);
