import type { BatchEntry } from './batch-entry.js';
import { assembleGames } from './game-assembly.js';
import type { GameEvaluation, GameObjective } from './game-objective.js';
import { hillClimb, type ClimbReport } from './hill-climber.js';

export interface SolvedGame {
  readonly teams: BatchEntry[][];
  readonly evaluation: GameEvaluation;
}

export interface TeamBatchDeps {
  readonly now: () => number;
  readonly random: () => number;
}

export interface TeamBatchResult {
  readonly games: SolvedGame[];
  readonly climbs: ClimbReport[];
}

/**
 * Teams, NvN and free-for-all (Battle.net talk, "StarCraft II" and "Performance Issues"): the
 * batch, already sorted by score, is cut into slices of `sliceTickets` consecutive tickets ("presort
 * players before batching"), each slice is assembled into games and hill-climbed, and only the
 * games that are viable start ("start the games that are viable; put leftovers in the next batch").
 * The time budget is shared out across slices by their size, and a slice that converges early
 * leaves its time to the next. Slices are independent and pure, so they could run on worker
 * threads; at our batch sizes one thread is enough.
 */
export function solveTeamBatch(
  sorted: readonly BatchEntry[],
  shape: { readonly teams: number; readonly teamSize: number; readonly sliceTickets: number },
  objective: GameObjective,
  deps: TeamBatchDeps,
  budgetMs: number,
): TeamBatchResult {
  const start = deps.now();
  const games: SolvedGame[] = [];
  const climbs: ClimbReport[] = [];
  const slice = Math.max(1, shape.sliceTickets);
  for (let from = 0; from < sorted.length; from += slice) {
    const to = Math.min(sorted.length, from + slice);
    const places = assembleGames(sorted.slice(from, to), shape.teams, shape.teamSize);
    const deadline = start + (budgetMs * to) / sorted.length;
    climbs.push(hillClimb(places, objective, { now: deps.now, random: deps.random, deadline }));
    for (const place of places) {
      if (place.bench) continue;
      const evaluation = objective.evaluate(place.teams);
      if (evaluation.viable) games.push({ teams: place.teams, evaluation });
    }
  }
  return { games, climbs };
}
