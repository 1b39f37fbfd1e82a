import { identityOrder, SortedBatch, type BatchEntry } from './batch-entry.js';
import type { CompetitivePlayer, CompetitiveTicket, PairWindow, SoftPreference, TeamScoreAggregation } from './competitive-config.js';
import { GameObjective } from './game-objective.js';
import { pairWithinBudgets } from './budget-pairing.js';
import { pairChoice, pairNeighbours } from './one-on-one-pairing.js';
import { seededRandom } from './seeded-random.js';
import { SoftPreferences } from './soft-preferences.js';
import { solveTeamSlice } from './team-batch-solver.js';
import { VenueChoice } from './venue-choice.js';

/**
 * A batch cut into slices by score range, in a form that crosses a thread boundary cheaply
 * (Battle.net talk, "Performance Issues": "you can thread batches; presort players before batching
 * and threading"). The matcher prepares slices on its own thread (sort, cut, encode), a solver
 * solves each one with the pure per-slice functions (in process, or on a worker thread), and the
 * matcher applies the results to its pool.
 *
 * A slice is typed arrays plus a few numbers and strings: structured-cloning the tickets
 * themselves (objects, arrays, a Map each) cost about as long as solving the whole 100k batch, on
 * the thread we want to free, while copying these arrays costs a few ms. The solver rebuilds
 * stand-in tickets that answer every question the solvers ask exactly as the real ones would
 * (player scores in order, latency to each configured region, whether any latency was measured,
 * configured maps preferred and vetoed, whether any preference was stated), so a slice solves to the
 * same games wherever it runs. Results name tickets by their index in the slice.
 *
 * Solving in process skips the round trip: solveRange works on the sorted batch itself, whose
 * tickets answer those questions the same way, so a slice forms the same games either way, and a
 * batch does not pay for encoding and rebuilding every ticket when it never leaves the thread.
 */

/** What every slice of one batch shares: the factory's shape and the spread scores are measured in. */
export interface SliceContext {
  readonly teams: number;
  readonly teamSize: number;
  readonly teamScore: TeamScoreAggregation;
  readonly maps: readonly string[];
  readonly regions: readonly string[];
  /** The factory's score standard deviation at prepare time (1 while unknown); > 0. */
  readonly sigma: number;
  /** Soft filters; absent means none. */
  readonly softPreferences?: readonly SoftPreference[];
  /** 1v1: whose window a pair must fit; absent means the default. */
  readonly pairWindow?: PairWindow;
}

/** One slice: `count` consecutive tickets of the sorted batch. Plain, structured-clone-able data. */
export interface SliceTask {
  readonly context: SliceContext;
  /** Seed of the slice's RNG (hill-climb moves), drawn from the matcher's injected RNG. */
  readonly seed: number;
  /** Hill-climb budget of this slice, on the clock of whoever solves it, from when it starts. */
  readonly budgetMs: number;
  readonly count: number;
  /** Per ticket, in ascending score: party score, wait and the window in force. */
  readonly score: Float64Array;
  readonly waitMs: Float64Array;
  readonly maxScoreGap: Float64Array;
  readonly maxLatencyMs: Float64Array;
  /** Players of ticket i are playerScore[playerStart[i] .. playerStart[i + 1]), in ticket order. */
  readonly playerStart: Int32Array;
  readonly playerScore: Float64Array;
  /** Ticket flags: MEASURED (some latency), PREFERS (some map preference stated). */
  readonly flags: Uint8Array;
  /** count x regions latencies, NaN where not measured; empty when no regions are configured. */
  readonly latency: Float64Array;
  /** count x maps: PREFERRED | VETOED bits; empty when no maps are configured. */
  readonly mapFlags: Uint8Array;
  /**
   * count x soft preferences: each ticket's value of the preference's attribute as an id local to
   * the slice (equal ids = equal values), -1 where not stated; empty without soft preferences.
   */
  readonly softValue: Int32Array;
}

/** The games a slice formed, tickets named by their index in the slice. */
export interface SliceResult {
  readonly games: number;
  /** games x teams: how many tickets each team holds. */
  readonly teamLength: Int32Array;
  /** The tickets of every team of every game, in that order. */
  readonly members: Int32Array;
  /** Per game: index into context.maps / context.regions, -1 for none. */
  readonly map: Int32Array;
  readonly region: Int32Array;
  readonly scoreGap: Float64Array;
  readonly teamImbalance: Float64Array;
  readonly climbAttempts: number;
  readonly climbImprovements: number;
  readonly converged: boolean;
}

/** Solves slices somewhere else (worker threads); must give what solveSlice gives. */
export interface SliceSolver {
  solve(task: SliceTask): Promise<SliceResult>;
}

const MEASURED = 1;
const PREFERS = 2;
const PREFERRED = 1;
const VETOED = 2;
/** Stands for latencies and preferences outside the config: never equal to a configured name. */
const ELSEWHERE = '\u0000elsewhere';

/** Positions [from, to) of a sorted batch as a SliceTask. */
export function encodeSlice(
  batch: SortedBatch,
  from: number,
  to: number,
  context: SliceContext,
  seed: number,
  budgetMs: number,
): SliceTask {
  const count = to - from;
  const { maps, regions } = context;
  const playerStart = new Int32Array(count + 1);
  const flags = new Uint8Array(count);
  const latency = new Float64Array(count * regions.length);
  const mapFlags = new Uint8Array(count * maps.length);
  const soft = context.softPreferences ?? [];
  const softValue = new Int32Array(count * soft.length).fill(-1);
  const softIds = new Map<string, number>();
  let players = 0;
  for (let k = from; k < to; k++) players += batch.size[k] as number;
  const playerScore = new Float64Array(players);
  let p = 0;
  for (let i = 0; i < count; i++) {
    const ticket = batch.tickets[from + i] as CompetitiveTicket;
    playerStart[i] = p;
    for (const player of ticket.players) playerScore[p++] = player.score;
    let f = 0;
    if (ticket.latencyMs.size > 0) f |= MEASURED;
    if (ticket.preferredMaps.length > 0) f |= PREFERS;
    flags[i] = f;
    for (let r = 0; r < regions.length; r++) {
      latency[i * regions.length + r] = ticket.latencyMs.get(regions[r] as string) ?? NaN;
    }
    for (let m = 0; m < maps.length; m++) {
      const map = maps[m] as string;
      mapFlags[i * maps.length + m] =
        (ticket.preferredMaps.includes(map) ? PREFERRED : 0) | (ticket.vetoedMaps.includes(map) ? VETOED : 0);
    }
    for (let s = 0; s < soft.length; s++) {
      const value = ticket.softAttributes?.get((soft[s] as SoftPreference).attribute);
      if (value === undefined) continue;
      let id = softIds.get(value);
      if (id === undefined) softIds.set(value, (id = softIds.size));
      softValue[i * soft.length + s] = id;
    }
  }
  playerStart[count] = p;
  return {
    context,
    seed,
    budgetMs,
    count,
    score: batch.score.slice(from, to),
    waitMs: batch.waitMs.slice(from, to),
    maxScoreGap: batch.maxScoreGap.slice(from, to),
    maxLatencyMs: batch.maxLatencyMs.slice(from, to),
    playerStart,
    playerScore,
    flags,
    latency,
    mapFlags,
    softValue,
  };
}

const NO_LATENCY: ReadonlyMap<string, number> = new Map();
const NOTHING: readonly string[] = [];

/** The slice as a batch of stand-in tickets, positions as in the slice. */
function decodeSlice(task: SliceTask): SortedBatch {
  const { maps, regions } = task.context;
  const tickets = new Array<CompetitiveTicket>(task.count);
  const size = new Int32Array(task.count);
  for (let i = 0; i < task.count; i++) {
    const players: CompetitivePlayer[] = [];
    const end = task.playerStart[i + 1] as number;
    for (let p = task.playerStart[i] as number; p < end; p++) {
      players.push({ playerId: '', score: task.playerScore[p] as number });
    }
    const flags = task.flags[i] as number;
    let latencyMs = NO_LATENCY;
    if ((flags & MEASURED) !== 0) {
      const measured = new Map<string, number>([[ELSEWHERE, Infinity]]);
      for (let r = 0; r < regions.length; r++) {
        const ms = task.latency[i * regions.length + r] as number;
        if (!Number.isNaN(ms)) measured.set(regions[r] as string, ms);
      }
      latencyMs = measured;
    }
    let preferredMaps = NOTHING;
    let vetoedMaps = NOTHING;
    if (maps.length > 0 || (flags & PREFERS) !== 0) {
      const preferred: string[] = [];
      const vetoed: string[] = [];
      for (let m = 0; m < maps.length; m++) {
        const bits = task.mapFlags[i * maps.length + m] as number;
        if ((bits & PREFERRED) !== 0) preferred.push(maps[m] as string);
        if ((bits & VETOED) !== 0) vetoed.push(maps[m] as string);
      }
      if ((flags & PREFERS) !== 0) preferred.push(ELSEWHERE);
      preferredMaps = preferred;
      vetoedMaps = vetoed;
    }
    const soft = task.context.softPreferences ?? [];
    let softAttributes: Map<string, string> | undefined;
    for (let s = 0; s < soft.length; s++) {
      const id = task.softValue[i * soft.length + s] as number;
      if (id >= 0) (softAttributes ??= new Map()).set((soft[s] as SoftPreference).attribute, String(id));
    }
    tickets[i] = { ticketId: '', players, enqueuedAt: 0, latencyMs, preferredMaps, vetoedMaps, softAttributes };
    size[i] = players.length;
  }
  const columns = {
    tickets,
    ticketIds: new Array<string>(task.count).fill(''),
    size,
    score: task.score,
    waitMs: task.waitMs,
    maxScoreGap: task.maxScoreGap,
    maxLatencyMs: task.maxLatencyMs,
  };
  return new SortedBatch(columns, identityOrder(task.count));
}

/**
 * Solves one slice: 1v1 pairs score neighbours, other shapes assemble and hill-climb games. Pure
 * but for `now`, the clock the hill-climb budget is measured with (the solving thread's own).
 */
export function solveSlice(task: SliceTask, now: () => number): SliceResult {
  return solveRange(decodeSlice(task), 0, task.count, task.context, task.seed, task.budgetMs, now);
}

/** solveSlice on entries already at hand, in ascending score; the result names them by position. */
export function solveEntries(
  entries: readonly BatchEntry[],
  context: SliceContext,
  seed: number,
  budgetMs: number,
  now: () => number,
): SliceResult {
  return solveRange(SortedBatch.of(entries), 0, entries.length, context, seed, budgetMs, now);
}

/**
 * solveSlice on positions [from, to) of a sorted batch at hand (the matcher's own, or a slice's
 * stand-ins). The result names each ticket by its position less `from`, as solveSlice's.
 */
export function solveRange(
  batch: SortedBatch,
  from: number,
  to: number,
  context: SliceContext,
  seed: number,
  budgetMs: number,
  now: () => number,
): SliceResult {
  const venue = new VenueChoice(context.maps, context.regions);
  const soft = new SoftPreferences(context.softPreferences ?? []);
  if (context.teams === 2 && context.teamSize === 1) return pairRange(batch, from, to, context, venue, soft);
  const teamLength: number[] = [];
  const members: number[] = [];
  const map: number[] = [];
  const region: number[] = [];
  const scoreGap: number[] = [];
  const teamImbalance: number[] = [];
  const objective = new GameObjective(context, venue, context.sigma, soft);
  const result = solveTeamSlice(batch.entries(from, to), context, objective, {
    now,
    random: seededRandom(seed),
    budgetMs,
  });
  for (const solved of result.games) {
    const e = solved.evaluation;
    for (const team of solved.teams) {
      teamLength.push(team.length);
      for (const entry of team) members.push(entry.index - from);
    }
    map.push(e.map === undefined ? -1 : context.maps.indexOf(e.map));
    region.push(e.region === undefined ? -1 : context.regions.indexOf(e.region));
    scoreGap.push(e.scoreGap);
    teamImbalance.push(e.teamImbalance);
  }
  return {
    games: map.length,
    teamLength: Int32Array.from(teamLength),
    members: Int32Array.from(members),
    map: Int32Array.from(map),
    region: Int32Array.from(region),
    scoreGap: Float64Array.from(scoreGap),
    teamImbalance: Float64Array.from(teamImbalance),
    climbAttempts: result.climb.attempts,
    climbImprovements: result.climb.improvements,
    converged: result.climb.converged,
  };
}

/** 1v1: the pairs of pairNeighbours (or the budget pairing), written straight into the result's arrays. */
function pairRange(
  batch: SortedBatch,
  from: number,
  to: number,
  context: SliceContext,
  venue: VenueChoice,
  soft: SoftPreferences,
): SliceResult {
  // Pairs as positions, [low, high, ...]: neighbours for pairNeighbours, and also neighbours but
  // one for the budget pairing.
  let pairs: Int32Array;
  if (context.pairWindow === 'budget') {
    pairs = pairWithinBudgets(batch, from, to, venue, context.sigma, {
      soft,
      softPreferences: context.softPreferences ?? [],
      regions: context.regions,
      maps: context.maps,
    });
  } else {
    const lows = pairNeighbours(batch, from, to, venue, context.sigma, soft, context.pairWindow);
    pairs = new Int32Array(2 * lows.length);
    for (let g = 0; g < lows.length; g++) {
      pairs[2 * g] = lows[g] as number;
      pairs[2 * g + 1] = (lows[g] as number) + 1;
    }
  }
  const games = pairs.length / 2;
  const members = new Int32Array(2 * games);
  const map = new Int32Array(games).fill(-1);
  const region = new Int32Array(games).fill(-1);
  const scoreGap = new Float64Array(games);
  for (let g = 0; g < games; g++) {
    const low = pairs[2 * g] as number;
    const high = pairs[2 * g + 1] as number;
    // The higher score is named first, as its own team.
    members[2 * g] = high - from;
    members[2 * g + 1] = low - from;
    scoreGap[g] = (batch.score[high] as number) - (batch.score[low] as number);
    if (venue.trivial) continue;
    const choice = pairChoice(venue, batch.entry(low), batch.entry(high));
    if (choice.map.map !== undefined) map[g] = context.maps.indexOf(choice.map.map);
    if (choice.region.region !== undefined) region[g] = context.regions.indexOf(choice.region.region);
  }
  return {
    games,
    teamLength: new Int32Array(2 * games).fill(1),
    members,
    map,
    region,
    scoreGap,
    teamImbalance: scoreGap.slice(),
    climbAttempts: 0,
    climbImprovements: 0,
    converged: true,
  };
}
