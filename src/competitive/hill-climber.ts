import type { BatchEntry } from './batch-entry.js';
import type { BatchPlace } from './game-assembly.js';
import type { GameObjective, TeamSummary } from './game-objective.js';

export interface ClimbClock {
  /** Injected clock, so tests decide when the budget runs out. */
  readonly now: () => number;
  /** Injected seeded RNG in [0, 1). */
  readonly random: () => number;
  /** now() value at which the climb stops, whatever it has found. */
  readonly deadline: number;
}

export interface ClimbReport {
  readonly attempts: number;
  readonly improvements: number;
  /** True when the climb stopped because nothing nearby improved, false when time ran out. */
  readonly converged: boolean;
}

/** How far apart (in score-ordered places) two places may be to exchange tickets. */
const NEIGHBOURHOOD = 3;
/** Consecutive failed attempts per place before the climb is declared stuck at a local optimum. */
const PATIENCE_PER_PLACE = 32;
const MIN_PATIENCE = 256;
const CLOCK_CHECK_EVERY = 32;
/**
 * A place whose cost is under this (in the objective's unit, sigma of skill: a game within a
 * hundredth of a sigma of balance and spread, a ticket benched for under half a second) is settled:
 * the climb draws the first place of a move among the unsettled ones only. A move between two
 * settled places could lower the total by less than twice this, and costs never go below 0.
 */
export const SETTLED_COST = 0.01;

/**
 * Hill-climbing over a batch laid out in places (Battle.net talk, "Hill Climbing": "swap something
 * around, see if the games are better, if you still have time, goto 2"). A move exchanges whole
 * parties between two teams of the same game, of neighbouring games, or between a game and the
 * bench: one for one when sizes match, or one party for two whose sizes add up to it. A move is
 * kept only when the summed cost of the places it touches goes down. The cost is incremental:
 * every team of every game keeps a summary (GameObjective.summarize), a move summarises again only
 * the two teams it touched and puts their games' costs together from the summaries; re-evaluating
 * both games from all their members was most of a 5v5 batch. A move starts from a place that is not
 * settled (SETTLED_COST): in a large, dense batch nearly every game formed from score order is
 * already within a hundredth of a sigma, and drawing moves around them was most of the climb for
 * no gain a player could see. The climb ends when the time budget is spent, when no place is
 * unsettled, or when `patience` attempts in a row fail; patience grows with the unsettled places,
 * so a small or sparse batch is searched harder per player ("fewer players means you need to work
 * harder" — "Performance Issues").
 */
export function hillClimb(places: BatchPlace[], objective: GameObjective, clock: ClimbClock): ClimbReport {
  // summaries[p][t]: team t of place p (none for the bench, whose cost is its ticket's wait).
  const summaries: TeamSummary[][] = places.map((place) =>
    place.bench
      ? []
      : place.teams.map((team) => {
          const summary = objective.newSummary();
          objective.summarize(team, summary);
          return summary;
        }),
  );
  const costOf = (p: number): number => {
    const place = places[p] as BatchPlace;
    return place.bench ? objective.benchCost(place.teams[0]?.[0] as BatchEntry) : objective.cost(place.teams, summaries[p] as TeamSummary[]);
  };
  for (let p = 0; p < places.length; p++) (places[p] as BatchPlace).cost = costOf(p);
  // The touched teams' new summaries are made here and swapped in; a move undone swaps them back.
  let spareA = objective.newSummary();
  let spareB = objective.newSummary();

  const unsettled = new UnsettledPlaces(places);
  const pick = (length: number): number => Math.min(length - 1, Math.floor(clock.random() * length));
  let attempts = 0;
  let improvements = 0;
  let failures = 0;
  if (!places.some((place) => !place.bench)) return { attempts, improvements, converged: true };

  // Patience follows the places still worth a move, so a batch of well-formed games (most places
  // of a large, dense batch) converges in a few moves per place that is not.
  while (unsettled.count > 0 && failures < Math.max(MIN_PATIENCE, PATIENCE_PER_PLACE * unsettled.count)) {
    if (attempts % CLOCK_CHECK_EVERY === 0 && clock.now() >= clock.deadline) {
      return { attempts, improvements, converged: false };
    }
    attempts += 1;
    const a = unsettled.at(pick(unsettled.count));
    const b = Math.max(0, Math.min(places.length - 1, a + pick(2 * NEIGHBOURHOOD + 1) - NEIGHBOURHOOD));
    const placeA = places[a] as BatchPlace;
    const placeB = places[b] as BatchPlace;
    const ta = pick(placeA.teams.length);
    const tb = pick(placeB.teams.length);
    if (placeA.bench && placeB.bench) {
      failures += 1;
      continue;
    }
    if (a === b && ta === tb) {
      failures += 1;
      continue;
    }
    const teamA = placeA.teams[ta] as BatchEntry[];
    const teamB = placeB.teams[tb] as BatchEntry[];
    const ia = pick(teamA.length);
    const ib = pick(teamB.length);
    // Parties of one size swap places (undone by swapping back); otherwise the teams are copied
    // first, so the splices of an uneven exchange can be undone.
    const even = (teamA[ia] as BatchEntry).size === (teamB[ib] as BatchEntry).size;
    const savedA = even ? undefined : teamA.slice();
    const savedB = even ? undefined : teamB.slice();
    if (!exchange(teamA, teamB, ia, ib, placeA.bench, placeB.bench)) {
      failures += 1;
      continue;
    }
    const summariesA = summaries[a] as TeamSummary[];
    const summariesB = summaries[b] as TeamSummary[];
    const oldA = summariesA[ta] as TeamSummary;
    const oldB = summariesB[tb] as TeamSummary;
    if (!placeA.bench) {
      objective.summarize(teamA, spareA);
      summariesA[ta] = spareA;
    }
    if (!placeB.bench) {
      objective.summarize(teamB, spareB);
      summariesB[tb] = spareB;
    }
    const before = placeA.cost + (a === b ? 0 : placeB.cost);
    const costA = costOf(a);
    const costB = a === b ? 0 : costOf(b);
    if (costA + costB < before - 1e-9) {
      placeA.cost = costA;
      if (a !== b) placeB.cost = costB;
      if (!placeA.bench) spareA = oldA;
      if (!placeB.bench) spareB = oldB;
      unsettled.update(a);
      unsettled.update(b);
      improvements += 1;
      failures = 0;
    } else {
      if (!placeA.bench) summariesA[ta] = oldA;
      if (!placeB.bench) summariesB[tb] = oldB;
      if (even) {
        const x = teamA[ia] as BatchEntry;
        teamA[ia] = teamB[ib] as BatchEntry;
        teamB[ib] = x;
      } else {
        placeA.teams[ta] = savedA as BatchEntry[];
        placeB.teams[tb] = savedB as BatchEntry[];
      }
      failures += 1;
    }
  }
  return { attempts, improvements, converged: true };
}

/** The places whose cost is at least SETTLED_COST, as a list to draw from: O(1) to draw, add or drop. */
class UnsettledPlaces {
  private readonly list: Int32Array;
  /** Position of each place in `list`, or -1 when settled. */
  private readonly slot: Int32Array;
  count = 0;

  constructor(private readonly places: readonly BatchPlace[]) {
    this.list = new Int32Array(places.length);
    this.slot = new Int32Array(places.length).fill(-1);
    for (let p = 0; p < places.length; p++) this.update(p);
  }

  at(k: number): number {
    return this.list[k] as number;
  }

  /** After place p's cost changed. */
  update(p: number): void {
    const at = this.slot[p] as number;
    if ((this.places[p] as BatchPlace).cost >= SETTLED_COST) {
      if (at < 0) {
        this.slot[p] = this.count;
        this.list[this.count++] = p;
      }
    } else if (at >= 0) {
      const last = this.list[--this.count] as number;
      this.list[at] = last;
      this.slot[last] = at;
      this.slot[p] = -1;
    }
  }
}

/**
 * Exchanges teamA[ia] with teamB[ib] in place when their parties have the same size; otherwise
 * the smaller party is joined by another party of its team so that the sizes match (not on the
 * bench, where a place holds one ticket). Returns false, changing nothing, when no such exchange
 * exists.
 */
function exchange(teamA: BatchEntry[], teamB: BatchEntry[], ia: number, ib: number, benchA: boolean, benchB: boolean): boolean {
  const x = teamA[ia] as BatchEntry;
  const y = teamB[ib] as BatchEntry;
  if (x.size === y.size) {
    teamA[ia] = y;
    teamB[ib] = x;
    return true;
  }
  if (x.size > y.size) return benchB ? false : exchangeOneForTwo(teamA, ia, teamB, ib);
  return benchA ? false : exchangeOneForTwo(teamB, ib, teamA, ia);
}

/** Big party big[bi] for small[si] plus another party of `small`'s team that makes up the size. */
function exchangeOneForTwo(big: BatchEntry[], bi: number, small: BatchEntry[], si: number): boolean {
  const x = big[bi] as BatchEntry;
  const y = small[si] as BatchEntry;
  const missing = x.size - y.size;
  const zi = small.findIndex((entry, i) => i !== si && entry.size === missing);
  if (zi < 0) return false;
  const z = small[zi] as BatchEntry;
  big.splice(bi, 1, y, z);
  small.splice(Math.max(si, zi), 1);
  small.splice(Math.min(si, zi), 1, x);
  return true;
}
