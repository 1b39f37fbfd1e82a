/**
 * The rating systems' interface, restated type-only until src/ratings/ (the ratings helper's
 * branch) is on main: then this file re-exports from there and the real Elo, Glicko-2 and
 * TrueSkill plug into runSimulation's `ratingSystems` argument unchanged.
 */
export interface PlayerRating {
  readonly mean: number;
  readonly deviation: number;
  readonly volatility?: number;
  readonly games: number;
  readonly lastPlayedDay?: number;
  readonly rankPoints?: number;
}

export interface GameOutcome {
  readonly teams: readonly (readonly string[])[];
  /** 0 = first place; equal ranks are draws. */
  readonly ranks: readonly number[];
  readonly day: number;
}

export interface RatingSystem {
  readonly name: 'elo' | 'glicko2' | 'trueskill';
  initial(): PlayerRating;
  update(outcome: GameOutcome, ratings: ReadonlyMap<string, PlayerRating>): Map<string, PlayerRating>;
  /** What the matcher sorts by. */
  score(r: PlayerRating): number;
  /** How unsure score() is, in its units: widens the player's window. */
  uncertainty(r: PlayerRating): number;
}
