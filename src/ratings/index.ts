import { eloSystem } from './elo.js';
import { glicko2System } from './glicko2.js';
import type { LadderConfig, PlayerRating, RatingSystem } from './rating-system.js';
import { trueskillSystem } from './trueskill.js';

export * from './rating-system.js';
export { eloExpected, eloSystem, eloUpdate } from './elo.js';
export { GLICKO2_SCALE, glicko2Inactivity, glicko2Period, glicko2System, nextRankPoints } from './glicko2.js';
export { trueskillQuality, trueskillRate, trueskillSystem, trueskillWinProbability } from './trueskill.js';

/** The rating system a ladder runs on. */
export function ratingSystem(config: LadderConfig): RatingSystem {
  switch (config.system.kind) {
    case 'elo':
      return eloSystem(config.system);
    case 'glicko2':
      return glicko2System(config.system);
    case 'trueskill':
      return trueskillSystem(config.system);
  }
}

/**
 * Where a player stands on the leaderboard: Elo by rating, Glicko-2 by its player-facing rank
 * points (INVERSUS), TrueSkill by the conservative mean - 3 deviations (the TrueSkill paper's
 * leaderboard), so a lucky newcomer does not top the board.
 */
export function standing(system: RatingSystem['name'], r: PlayerRating): number {
  switch (system) {
    case 'elo':
      return r.mean;
    case 'glicko2':
      return r.rankPoints ?? 0;
    case 'trueskill':
      return r.mean - 3 * r.deviation;
  }
}
export { partyRating, partyScores, type PartyScores } from './party-rating.js';
export { InMemoryRatingStore } from './in-memory-rating-store.js';
