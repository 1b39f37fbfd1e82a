import type { SimPlayer } from './population.js';
import type { PlayerRating, RatingSystem } from './rating-system-contract.js';

/**
 * How far ratings are from the truth, by games played (issue 13): at each snapshot every player's
 * percentile by rating is compared with their percentile by true skill; the error of a player
 * with g games is |difference| (0..1 of the rating range's ranks). Kept per g up to MAX_GAMES
 * (the last bucket holds g >= MAX_GAMES), from the latest snapshot a player was seen in.
 */
const MAX_GAMES = 50;

export class RatingError {
  private readonly trueRank: Float64Array;
  private latest: { games: number; error: number }[] = [];

  constructor(
    private readonly population: readonly SimPlayer[],
    private readonly system: RatingSystem,
    private readonly ratingOf: (p: SimPlayer) => PlayerRating,
  ) {
    this.trueRank = percentiles(population.map((p) => p.trueSkill));
  }

  snapshot(): void {
    const ratings = this.population.map((p) => this.ratingOf(p));
    const ratingRank = percentiles(ratings.map((r) => this.system.score(r)));
    this.latest = ratings.map((r, i) => ({ games: r.games, error: Math.abs((ratingRank[i] as number) - (this.trueRank[i] as number)) }));
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

/** Mid-rank percentile in [0, 1] of each value (ties share their mean rank). */
function percentiles(values: readonly number[]): Float64Array {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const out = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j += 1;
    const p = n === 1 ? 0.5 : (i + j) / 2 / (n - 1);
    for (let k = i; k <= j; k++) out[order[k]!] = p;
    i = j + 1;
  }
  return out;
}
