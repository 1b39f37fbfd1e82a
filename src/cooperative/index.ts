export { CooperativeMatcher } from './cooperative-matcher.js';
export { MAX_MATCHABLE_KEYS, normalizeCooperativeConfig } from './config.js';
export type { CooperativeConfig, NormalizedCooperativeConfig } from './config.js';
export type {
  CooperativeStats,
  ExpiredReservation,
  GameSnapshot,
  GameView,
  RemovedGame,
  ReservationView,
  StatsPredicate,
} from './types.js';
