import type { PlayerRating, RatingSystem } from './rating-system.js';

/**
 * A party's rating as one player: the composite of its members. Glicko-2 uses
 * INVERSUS's composite team, the average rating and deviation on the Glicko-2 scale (a linear map
 * of the displayed one, so averaging either is the same) with the average volatility; Elo and
 * TrueSkill use the members' mean and mean deviation. `games` is the least any member played, so a
 * newcomer keeps the party's window loose. O(members).
 */
export function partyRating(system: RatingSystem, members: readonly PlayerRating[]): PlayerRating {
  if (members.length === 0) return system.initial();
  const avg = (f: (r: PlayerRating) => number) => members.reduce((s, r) => s + f(r), 0) / members.length;
  const games = Math.min(...members.map((r) => r.games));
  const base = { mean: avg((r) => r.mean), deviation: avg((r) => r.deviation), games };
  if (system.name !== 'glicko2') return base;
  const initialVolatility = system.initial().volatility ?? 0;
  return { ...base, volatility: avg((r) => r.volatility ?? initialVolatility) };
}

export interface PartyScores {
  /** Each member's score: the one the game sent, or the system's score of their rating. */
  readonly scores: number[];
  /** How far the party's window widens: the uncertainty of the composite of the members without a sent score (0 when every member brought one). */
  readonly uncertainty: number;
}

/**
 * Scores for a ticket on a rated factory: a score the game sends wins; a member without one is
 * scored from their rating (a new player from the system's initial rating), and the party's
 * window widens by the composite's uncertainty, so a new player is matched loosely and a settled
 * one tightly.
 */
export function partyScores(
  system: RatingSystem,
  party: readonly { readonly playerId: string; readonly score: number | undefined }[],
  ratingOf: (playerId: string) => PlayerRating | undefined,
): PartyScores {
  const rated: PlayerRating[] = [];
  const scores = party.map((p) => {
    if (p.score !== undefined) return p.score;
    const rating = ratingOf(p.playerId) ?? system.initial();
    rated.push(rating);
    return system.score(rating);
  });
  return { scores, uncertainty: rated.length === 0 ? 0 : system.uncertainty(partyRating(system, rated)) };
}
