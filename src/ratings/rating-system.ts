/**
 * The common face of the three rating systems. Pure: a system is built from its
 * ladder's config and turns one game's outcome into new ratings; no clock, no I/O.
 */

/** What a ladder remembers about a player. `mean`/`deviation` are in the system's own units. */
export interface PlayerRating {
  readonly mean: number;
  readonly deviation: number;
  /** Glicko-2 only. */
  readonly volatility?: number;
  readonly games: number;
  /** Day number (days since the epoch) of the last rated game; Glicko-2 grows deviation from it. */
  readonly lastPlayedDay?: number;
  /** Glicko-2 only: INVERSUS's player-facing points, never negative, moving toward the skill. */
  readonly rankPoints?: number;
}

export interface GameOutcome {
  /** teams in finishing order groups: ranks[i] is team i's place (0 best; equal = draw) */
  readonly teams: readonly (readonly string[])[];
  readonly ranks: readonly number[];
  /** Day number of the game, for inactivity. */
  readonly day: number;
}

export interface RatingSystem {
  readonly name: 'elo' | 'glicko2' | 'trueskill';
  initial(): PlayerRating;
  /** New ratings for every player of the game; a player missing from `ratings` starts at initial(). */
  update(outcome: GameOutcome, ratings: ReadonlyMap<string, PlayerRating>): Map<string, PlayerRating>;
  /** one comparable number for matching */
  score(r: PlayerRating): number;
  /** half-width of uncertainty in score units, widens matching windows */
  uncertainty(r: PlayerRating): number;
}

export interface EloParams {
  readonly kind: 'elo';
  /** Largest change one game can make (Destiny thesis: 16..32 for chess). */
  readonly kFactor: number;
  /** Rating difference at which the expected score is 10:1 (400 in chess). */
  readonly scale: number;
  readonly initialRating: number;
  /** Half-width of a new player's uncertainty; shrinks as 1/sqrt(1 + games). */
  readonly initialUncertainty: number;
}

/** Glicko-2 on the Glicko scale (1500/350), bounds as INVERSUS sets them. */
export interface Glicko2Params {
  readonly kind: 'glicko2';
  readonly tau: number;
  readonly initialRating: number;
  /** Also the largest deviation: never less sure than about a new player (INVERSUS). */
  readonly initialDeviation: number;
  readonly initialVolatility: number;
  /** Days of inactivity that count as one rating period (INVERSUS: 14). */
  readonly ratingPeriodDays: number;
  readonly minRating: number;
  readonly maxRating: number;
  /** Keeps ratings from stagnating (INVERSUS: 0.175 in Glicko-2 units, ~30 here). */
  readonly minDeviation: number;
  readonly minVolatility: number;
  readonly maxVolatility: number;
  /** Top of the rank-points range (INVERSUS: 10000). */
  readonly maxRankPoints: number;
  /** Largest rank-points change in one game (INVERSUS: 500). */
  readonly maxRankPointsStep: number;
}

export interface TrueSkillParams {
  readonly kind: 'trueskill';
  readonly mu: number;
  readonly sigma: number;
  readonly beta: number;
  readonly tau: number;
  readonly drawProbability: number;
}

export type SystemParams = EloParams | Glicko2Params | TrueSkillParams;

/** A ladder from factories.yaml: a rating system plus the abuse rules (Battle.net talk). */
export interface LadderConfig {
  readonly name: string;
  readonly system: SystemParams;
  /** Games shorter than this do not count ("require min game time"). */
  readonly minGameSeconds: number;
  /** A player who left before the end loses ("Disconnection = loss"). */
  readonly earlyLeaverCountsAsLoss: boolean;
}

export const DEFAULT_ELO: EloParams = { kind: 'elo', kFactor: 32, scale: 400, initialRating: 1500, initialUncertainty: 200 };

export const DEFAULT_GLICKO2: Glicko2Params = {
  kind: 'glicko2',
  tau: 0.5,
  initialRating: 1500,
  initialDeviation: 350,
  initialVolatility: 0.06,
  ratingPeriodDays: 14,
  // INVERSUS: rating within 3 initial deviations, deviation >= 0.175 (x173.7178), volatility 0.04..0.08.
  minRating: 450,
  maxRating: 2550,
  minDeviation: 30,
  minVolatility: 0.04,
  maxVolatility: 0.08,
  maxRankPoints: 10_000,
  maxRankPointsStep: 500,
};

export const DEFAULT_TRUESKILL: TrueSkillParams = {
  kind: 'trueskill',
  mu: 25,
  sigma: 25 / 3,
  beta: 25 / 6,
  tau: 25 / 300,
  drawProbability: 0.1,
};

/**
 * Each team's score against every other team: 1 for a better place, 0.5 for the same, 0 for a
 * worse one. pairScores(ranks)[i][j] is team i's score against team j.
 */
export function pairScores(ranks: readonly number[]): number[][] {
  return ranks.map((ri) => ranks.map((rj) => (ri < rj ? 1 : ri === rj ? 0.5 : 0)));
}

export function ratingOf(ratings: ReadonlyMap<string, PlayerRating>, player: string, system: RatingSystem): PlayerRating {
  return ratings.get(player) ?? system.initial();
}
