import type { SimPlayer } from './population.js';
import type { PlayerRating, RatingSystem } from './rating-system-contract.js';
import { RatingError } from './rating-error.js';

/**
 * One rating system's view of a run: every player's rating (by population index, so
 * no string look-ups on the hot path), how far it is from the truth, and per simulated hour how
 * often the side this system rated higher won. Every system of a run rates the same games.
 */
export class RatingLedger {
  private readonly ratings: (PlayerRating | undefined)[];
  private readonly initial: PlayerRating;
  readonly error: RatingError;
  /** Per simulated hour: games whose sides' mean ratings differed, and how often the higher won. */
  readonly higherRatedWins: { hour: number; games: number; wins: number }[] = [];

  constructor(
    readonly system: RatingSystem,
    population: readonly SimPlayer[],
  ) {
    this.ratings = new Array<PlayerRating | undefined>(population.length);
    this.initial = system.initial();
    this.error = new RatingError(population, system, (p) => this.of(p));
  }

  of(player: SimPlayer): PlayerRating {
    return this.ratings[player.index] ?? this.initial;
  }

  /** The outcome of one game: tally the higher-rated side, then rate every player. */
  record(sides: readonly (readonly SimPlayer[])[], ranks: readonly number[], now: number): void {
    const before = new Map<string, PlayerRating>();
    const seen = new Array<number>(sides.length);
    let top = 0;
    let level = true;
    for (let i = 0; i < sides.length; i++) {
      const side = sides[i]!;
      let sum = 0;
      for (const p of side) {
        const r = this.of(p);
        before.set(p.id, r);
        sum += this.system.score(r);
      }
      seen[i] = sum / side.length;
      if (seen[i]! > seen[top]!) top = i;
      if (seen[i] !== seen[0]) level = false;
    }
    if (!level) {
      const hour = Math.floor(now / 3_600_000);
      let row = this.higherRatedWins[this.higherRatedWins.length - 1];
      if (row === undefined || row.hour !== hour) this.higherRatedWins.push((row = { hour, games: 0, wins: 0 }));
      row.games += 1;
      if (ranks[top] === 0) row.wins += 1;
    }
    const teams = sides.map((side) => side.map((p) => p.id));
    const after = this.system.update({ teams, ranks, day: Math.floor(now / 86_400_000) }, before);
    for (const side of sides) for (const p of side) this.ratings[p.index] = after.get(p.id);
  }
}
