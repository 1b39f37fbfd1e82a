/** Ratings in the shared store: the RatingStore port on Redis, mirrored on every node. */
export { RedisRatingStore, RatingConflict, type RedisRatingStoreOptions } from './redis-rating-store.js';
export { ladderKeys } from './rating-keys.js';
export { openSharedRatings, type SharedRatings } from './shared-ratings.js';
