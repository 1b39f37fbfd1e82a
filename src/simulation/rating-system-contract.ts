/** The rating systems the simulation runs are the production ones (src/ratings/). */
export type { GameOutcome, PlayerRating, RatingSystem } from '../ratings/index.js';
