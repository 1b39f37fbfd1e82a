import type { BatchEntry } from './batch-entry.js';
import { assembleGames } from './game-assembly.js';
import type { GameEvaluation, GameObjective } from './game-objective.js';
import { hillClimb, type ClimbReport } from './hill-climber.js';

export interface SolvedGame {
  readonly teams: BatchEntry[][];
  readonly evaluation: GameEvaluation;
}

export interface TeamSliceClock {
  /** The clock of whoever solves the slice (the worker's own clock on a worker thread). */
  readonly now: () => number;
  /** Seeded RNG of this slice, so a slice replays the same wherever it is solved. */
  readonly random: () => number;
  /** This slice's share of the batch's hill-climb budget, counted from when its solve starts. */
  readonly budgetMs: number;
}

export interface TeamSliceResult {
  readonly games: SolvedGame[];
  readonly climb: ClimbReport;
}

/**
 * Teams, NvN and free-for-all (Battle.net talk, "StarCraft II" and "Performance Issues"): one
 * slice of a batch already sorted by score ("presort players before batching and threading") is
 * assembled into games and hill-climbed, and only the games that are viable start ("start the
 * games that are viable; put leftovers in the next batch"). The matcher cuts a batch into slices of
 * consecutive tickets and shares the time budget out by slice size; slices are independent and
 * pure, so they run in process one after the other or on worker threads in parallel
 * (batch-slices.ts, slice-worker-pool.ts).
 */
export function solveTeamSlice(
  sorted: readonly BatchEntry[],
  shape: { readonly teams: number; readonly teamSize: number },
  objective: GameObjective,
  clock: TeamSliceClock,
): TeamSliceResult {
  const deadline = clock.now() + clock.budgetMs;
  const places = assembleGames(sorted, shape.teams, shape.teamSize);
  const climb = hillClimb(places, objective, { now: clock.now, random: clock.random, deadline });
  const games: SolvedGame[] = [];
  for (const place of places) {
    if (place.bench) continue;
    const evaluation = objective.evaluate(place.teams);
    if (evaluation.viable) games.push({ teams: place.teams, evaluation });
  }
  return { games, climb };
}
