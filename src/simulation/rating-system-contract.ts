/** The rating systems the simulation runs are the production ones (src/ratings/, issue 12). */
export type { GameOutcome, PlayerRating, RatingSystem } from '../ratings/index.js';
