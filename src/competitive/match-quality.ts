import { cdf, pdf } from '../ratings/gaussian.js';
import { trueskillQuality } from '../ratings/trueskill.js';
import type { CompetitiveTicket, GameQuality } from './competitive-config.js';

/** One player as the balance of a game sees them: a score and how unsure it is (0 = known). */
export interface RatedPlayer {
  readonly score: number;
  readonly uncertainty: number;
}

export interface PredictedBalance {
  /** The chance the side predicted to win does win: 0.5 is a coin toss. */
  readonly favouriteWinProbability: number;
  /** TrueSkill's match quality: the chance of a draw relative to the most even game possible. */
  readonly matchQuality: number;
}

/**
 * A game's predicted balance under TrueSkill's model (Herbrich, Minka and Graepel, "TrueSkill: A
 * Bayesian Skill Rating System", 2006): a player performs around their score with spread `beta`
 * (the factory's performanceSd) plus their own uncertainty, and a team performs as the sum of its
 * players. Two teams: the favourite wins with Phi(|d| / c), d the difference of the teams' summed
 * scores and c^2 = n beta^2 + the summed variances, and the quality is sqrt(n beta^2 / c^2)
 * exp(-d^2 / 2c^2), the same value as the paper's general formula (src/ratings/trueskill.ts), which
 * games of more teams use. There the favourite's chance is that of placing first: one integral over
 * its performance of the chance every other team performs worse. O(players), or O(teams^3) for
 * more than two teams.
 */
export function predictedBalance(teams: readonly (readonly RatedPlayer[])[], beta: number): PredictedBalance {
  if (teams.length === 2) return twoTeams(teams[0] as readonly RatedPlayer[], teams[1] as readonly RatedPlayer[], beta);
  const matchQuality = trueskillQuality(
    teams.map((team) => team.map((p) => ({ mu: p.score, sigma: p.uncertainty }))),
    { beta },
  );
  return { favouriteWinProbability: strongestPlacesFirst(teams, beta), matchQuality };
}

function twoTeams(a: readonly RatedPlayer[], b: readonly RatedPlayer[], beta: number): PredictedBalance {
  let difference = 0;
  let variance = 0;
  for (const p of a) {
    difference += p.score;
    variance += p.uncertainty * p.uncertainty;
  }
  for (const p of b) {
    difference -= p.score;
    variance += p.uncertainty * p.uncertainty;
  }
  const performance = (a.length + b.length) * beta * beta;
  const c2 = performance + variance;
  if (!(c2 > 0)) return { favouriteWinProbability: difference === 0 ? 0.5 : 1, matchQuality: difference === 0 ? 1 : 0 };
  return {
    favouriteWinProbability: cdf(Math.abs(difference) / Math.sqrt(c2)),
    matchQuality: Math.sqrt(performance / c2) * Math.exp(-(difference * difference) / (2 * c2)),
  };
}

/** Integration points over the favourite's performance, +-8 of its spread. */
const STEPS = 160;

function strongestPlacesFirst(teams: readonly (readonly RatedPlayer[])[], beta: number): number {
  const means = teams.map((team) => team.reduce((s, p) => s + p.score, 0));
  const spreads = teams.map((team) => Math.sqrt(team.reduce((s, p) => s + beta * beta + p.uncertainty * p.uncertainty, 0)));
  let favourite = 0;
  for (let t = 1; t < teams.length; t++) if ((means[t] as number) > (means[favourite] as number)) favourite = t;
  const mean = means[favourite] as number;
  const spread = spreads[favourite] as number;
  if (!(spread > 0)) return 1;
  const step = (16 * spread) / STEPS;
  let total = 0;
  for (let k = 0; k <= STEPS; k++) {
    const x = mean - 8 * spread + k * step;
    let others = 1;
    for (let t = 0; t < teams.length; t++) {
      if (t === favourite) continue;
      const s = spreads[t] as number;
      others *= s > 0 ? cdf((x - (means[t] as number)) / s) : x > (means[t] as number) ? 1 : 0;
    }
    // Trapezoid rule: the end points count half.
    const weight = k === 0 || k === STEPS ? 0.5 : 1;
    total += weight * (pdf((x - mean) / spread) / spread) * others;
  }
  return Math.min(1, total * step);
}

/**
 * A formed game's quality figures. The predicted balance is computed when first read, from the
 * game's tickets (each player's score, the ticket's uncertainty): a 1v1 batch of 100k tickets forms
 * 50k games, and reading every ticket again in score order to price games nobody asks about cost a
 * cache miss per ticket.
 */
export class FormedGameQuality implements GameQuality {
  private balance: PredictedBalance | undefined;

  constructor(
    readonly scoreGap: number,
    readonly teamImbalance: number,
    readonly gapInSigma: number,
    readonly waitsMs: number[],
    private readonly beta: number,
    /** A pair's two tickets, or every team's. */
    private readonly players: readonly [CompetitiveTicket, CompetitiveTicket] | readonly (readonly CompetitiveTicket[])[],
  ) {}

  get favouriteWinProbability(): number {
    return this.predicted().favouriteWinProbability;
  }

  get matchQuality(): number {
    return this.predicted().matchQuality;
  }

  private predicted(): PredictedBalance {
    if (this.balance !== undefined) return this.balance;
    const sides = (Array.isArray(this.players[0]) ? this.players : this.players.map((ticket) => [ticket])) as readonly (readonly CompetitiveTicket[])[];
    const teams = sides.map((side) => {
      const rated: RatedPlayer[] = [];
      for (const ticket of side) {
        const uncertainty = ticket.scoreUncertainty ?? 0;
        for (const player of ticket.players) rated.push({ score: player.score, uncertainty });
      }
      return rated;
    });
    return (this.balance = predictedBalance(teams, this.beta));
  }
}
