export {
  assertValidCompetitiveConfig,
  type CompetitiveConfig,
  type CompetitivePlayer,
  type CompetitiveTicket,
  type ExpansionStep,
  type FormedGame,
  type GameQuality,
  type GeoPoint,
  type LocalityConfig,
  type PairWindow,
  type SoftPreference,
  type TeamScoreAggregation,
  type WaitTarget,
  type PlayerLimitBounds,
  DEFAULT_PLAYER_LIMITS,
} from './competitive-config.js';
export {
  CompetitiveMatcher,
  type BatchOut,
  type BatchReport,
  type CompetitiveMatcherDeps,
  type CompetitiveStats,
} from './competitive-matcher.js';
export { solveSlice, type SliceContext, type SliceResult, type SliceSolver, type SliceTask } from './batch-slices.js';
export { SliceWorkerPool, type SliceWorkerPoolOptions } from './slice-worker-pool.js';
export { ExpansionSchedule } from './expansion-schedule.js';
export { OBJECTIVE_WEIGHTS } from './game-objective.js';
export { ScoreDistribution } from './score-distribution.js';
export { seededRandom } from './seeded-random.js';
export { MAX_ABS_SCORE, validateTicket } from './ticket-validation.js';
export { greatCircleKm, latencyPrior, withLatencyPrior } from './locality.js';
export { SoftPreferences } from './soft-preferences.js';
export { DEFAULT_PAIR_WINDOW, pairWindowOf } from './one-on-one-pairing.js';
export { ArrivalDensity, DensitySnapshot, DensityView, RegionalDensity } from './arrival-density.js';
export { planTarget, TargetWindows, WINDOW_SHAPES, type TargetPlan, type WindowShape } from './target-windows.js';
export { predictedBalance, type PredictedBalance, type RatedPlayer } from './match-quality.js';
export { openSeats, type GameFill, type PartialGame, type RemainingPlayer } from './backfill/partial-game.js';
