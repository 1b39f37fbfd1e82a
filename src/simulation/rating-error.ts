import type { SimPlayer } from './population.js';
import type { PlayerRating, RatingSystem } from './rating-system-contract.js';

/**
 * How far ratings are from the truth, by games played (the goal: "within 2.5% of the rating range
 * of their true rank"). At a snapshot the ladder is every player with at least one game; a player
 * whose true skill ranks k-th on it should hold the ladder's k-th rating, and their error is the
 * distance to that rating as a share of the ladder's rating range (max - min). Kept per games
 * played up to MAX_GAMES (the last bucket holds g >= MAX_GAMES), from the latest snapshot.
 */
const MAX_GAMES = 50;

export class RatingError {
  private latest: { games: number; error: number }[] = [];

  constructor(
    private readonly population: readonly SimPlayer[],
    private readonly system: RatingSystem,
    private readonly ratingOf: (p: SimPlayer) => PlayerRating,
  ) {}

  snapshot(): void {
    const ranked: { trueSkill: number; rating: number; games: number }[] = [];
    for (const p of this.population) {
      const r = this.ratingOf(p);
      if (r.games > 0) ranked.push({ trueSkill: p.trueSkill, rating: this.system.score(r), games: r.games });
    }
    const ratings = Float64Array.from(ranked, (x) => x.rating).sort();
    const range = ranked.length > 1 ? ratings[ratings.length - 1]! - ratings[0]! : 0;
    ranked.sort((a, b) => a.trueSkill - b.trueSkill);
    this.latest = ranked.map((x, k) => ({ games: x.games, error: range > 0 ? Math.abs(x.rating - ratings[k]!) / range : 0 }));
  }

  /** Mean error and share within `tolerance` per games played, from the latest snapshot. */
  byGames(tolerance = 0.025): { games: number; players: number; meanError: number; withinTolerance: number }[] {
    const rows = Array.from({ length: MAX_GAMES + 1 }, (_, games) => ({ games, players: 0, sum: 0, within: 0 }));
    for (const { games, error } of this.latest) {
      const row = rows[Math.min(MAX_GAMES, games)]!;
      row.players += 1;
      row.sum += error;
      if (error <= tolerance) row.within += 1;
    }
    return rows
      .filter((r) => r.players > 0)
      .map((r) => ({ games: r.games, players: r.players, meanError: r.sum / r.players, withinTolerance: r.within / r.players }));
  }

  /** Share of players with at least `games` games whose error is within tolerance. */
  withinAfter(games: number, tolerance = 0.025): number {
    let n = 0;
    let within = 0;
    for (const s of this.latest) {
      if (s.games < games) continue;
      n += 1;
      if (s.error <= tolerance) within += 1;
    }
    return n === 0 ? NaN : within / n;
  }
}
