import { pairScores, ratingOf, type EloParams, type GameOutcome, type PlayerRating, type RatingSystem } from './rating-system.js';

/** Expected score of a player rated `a` against one rated `b` (Destiny thesis, Elo). */
export function eloExpected(a: number, b: number, scale: number): number {
  return 1 / (1 + 10 ** ((b - a) / scale));
}

/** One 1v1 update: R' = R + K(S - E). */
export function eloUpdate(rating: number, opponent: number, score: number, params: Pick<EloParams, 'kFactor' | 'scale'>): number {
  return rating + params.kFactor * (score - eloExpected(rating, opponent, params.scale));
}

/**
 * Elo for any number of teams: a team plays as its members' mean rating, and its change is the
 * mean of its pairwise changes against every other team, applied to each member. With two teams
 * of one this is textbook Elo.
 */
export function eloSystem(params: EloParams): RatingSystem {
  const initial = (): PlayerRating => ({ mean: params.initialRating, deviation: params.initialUncertainty, games: 0 });
  const system: RatingSystem = {
    name: 'elo',
    initial,
    update(outcome: GameOutcome, ratings) {
      const teams = outcome.teams.map((team) => team.map((p) => ratingOf(ratings, p, system)));
      const means = teams.map((team) => team.reduce((s, r) => s + r.mean, 0) / team.length);
      const scores = pairScores(outcome.ranks);
      const out = new Map<string, PlayerRating>();
      outcome.teams.forEach((team, i) => {
        let change = 0;
        for (let j = 0; j < means.length; j++) {
          if (j !== i) change += params.kFactor * (scores[i]![j]! - eloExpected(means[i]!, means[j]!, params.scale));
        }
        change /= Math.max(1, means.length - 1);
        team.forEach((player, k) => {
          const before = teams[i]![k]!;
          const games = before.games + 1;
          out.set(player, {
            mean: before.mean + change,
            // Elo has no deviation: a heuristic that narrows like a sample mean's standard error.
            deviation: params.initialUncertainty / Math.sqrt(1 + games),
            games,
            lastPlayedDay: outcome.day,
          });
        });
      });
      return out;
    },
    score: (r) => r.mean,
    uncertainty: (r) => r.deviation,
  };
  return system;
}
