import { pairScores, ratingOf, type Glicko2Params, type GameOutcome, type PlayerRating, type RatingSystem } from './rating-system.js';

/** Glicko scale <-> Glicko-2 scale (Glickman, "Example of the Glicko-2 system", step 2). */
export const GLICKO2_SCALE = 173.7178;
const CONVERGENCE = 1e-6;

/** A player on the Glicko-2 scale: mu, phi, sigma. */
export interface Glicko2State {
  readonly mu: number;
  readonly phi: number;
  readonly sigma: number;
}

export interface Glicko2Result {
  readonly mu: number;
  readonly phi: number;
  /** 1 win, 0.5 draw, 0 loss. */
  readonly score: number;
}

const g = (phi: number) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

/**
 * One rating period with the given results, unbounded: Glickman's steps 3-8, volatility by the
 * Illinois variant of regula falsi. No results = the deviation grows by one period.
 */
export function glicko2Period(player: Glicko2State, results: readonly Glicko2Result[], tau: number): Glicko2State {
  const { mu, phi, sigma } = player;
  if (results.length === 0) return { mu, phi: Math.sqrt(phi * phi + sigma * sigma), sigma };
  let invV = 0;
  let sum = 0;
  for (const r of results) {
    const gj = g(r.phi);
    const e = 1 / (1 + Math.exp(-gj * (mu - r.mu)));
    invV += gj * gj * e * (1 - e);
    sum += gj * (r.score - e);
  }
  const v = 1 / invV;
  const delta = v * sum;
  const sigmaNew = newVolatility(delta, phi, v, sigma, tau);
  const phiStar = Math.sqrt(phi * phi + sigmaNew * sigmaNew);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + invV);
  return { mu: mu + phiNew * phiNew * sum, phi: phiNew, sigma: sigmaNew };
}

function newVolatility(delta: number, phi: number, v: number, sigma: number, tau: number): number {
  const a = Math.log(sigma * sigma);
  const phi2 = phi * phi;
  const d2 = delta * delta;
  const f = (x: number) => {
    const ex = Math.exp(x);
    const t = phi2 + v + ex;
    return (ex * (d2 - phi2 - v - ex)) / (2 * t * t) - (x - a) / (tau * tau);
  };
  let A = a;
  let B: number;
  if (d2 > phi2 + v) {
    B = Math.log(d2 - phi2 - v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k++;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > CONVERGENCE) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  return Math.exp(A / 2);
}

/** Deviation growth for `periods` (may be fractional) rating periods without games (INVERSUS). */
export function glicko2Inactivity(player: Glicko2State, periods: number): Glicko2State {
  return { ...player, phi: Math.sqrt(player.phi * player.phi + periods * player.sigma * player.sigma) };
}

/**
 * Glicko-2 as INVERSUS runs it: one rating period per game; inactivity counted in whole days
 * since the last game, `ratingPeriodDays` to a period; rating, deviation and volatility kept in
 * bounds; team games through a composite team; rank points beside the skill rating.
 */
export function glicko2System(params: Glicko2Params): RatingSystem {
  const toState = (r: PlayerRating): Glicko2State => ({
    mu: (r.mean - params.initialRating) / GLICKO2_SCALE,
    phi: r.deviation / GLICKO2_SCALE,
    sigma: r.volatility ?? params.initialVolatility,
  });
  const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
  const bounded = (s: Glicko2State) => ({
    mean: clamp(params.initialRating + s.mu * GLICKO2_SCALE, params.minRating, params.maxRating),
    deviation: clamp(s.phi * GLICKO2_SCALE, params.minDeviation, params.initialDeviation),
    volatility: clamp(s.sigma, params.minVolatility, params.maxVolatility),
  });
  const asOf = (r: PlayerRating, day: number): Glicko2State => {
    const idle = r.lastPlayedDay === undefined ? 0 : Math.max(0, Math.floor(day - r.lastPlayedDay));
    const s = toState(r);
    if (idle === 0) return s;
    const grown = glicko2Inactivity(s, idle / params.ratingPeriodDays);
    return { ...grown, phi: Math.min(grown.phi, params.initialDeviation / GLICKO2_SCALE) };
  };
  const system: RatingSystem = {
    name: 'glicko2',
    initial: () => ({
      mean: params.initialRating,
      deviation: params.initialDeviation,
      volatility: params.initialVolatility,
      games: 0,
      rankPoints: 0,
    }),
    update(outcome: GameOutcome, ratings) {
      const before = outcome.teams.map((team) => team.map((p) => ratingOf(ratings, p, system)));
      const states = before.map((team) => team.map((r) => asOf(r, outcome.day)));
      const composite = states.map((team) => ({
        mu: team.reduce((s, p) => s + p.mu, 0) / team.length,
        phi: team.reduce((s, p) => s + p.phi, 0) / team.length,
      }));
      const scores = pairScores(outcome.ranks);
      const out = new Map<string, PlayerRating>();
      outcome.teams.forEach((team, i) => {
        team.forEach((player, k) => {
          const self = states[i]![k]!;
          // Composite team (INVERSUS): the opponent seen by each member is the other team shifted
          // by the gap between this member and their own team's average.
          const results: Glicko2Result[] = [];
          composite.forEach((other, j) => {
            if (j === i) return;
            results.push({ mu: self.mu + other.mu - composite[i]!.mu, phi: other.phi, score: scores[i]![j]! });
          });
          const next = bounded(glicko2Period(self, results, params.tau));
          const old = before[i]![k]!;
          const score = results.reduce((s, r) => s + r.score, 0) / Math.max(1, results.length);
          out.set(player, {
            ...next,
            games: old.games + 1,
            lastPlayedDay: outcome.day,
            rankPoints: nextRankPoints(old.rankPoints ?? 0, next.mean, next.deviation, score, params),
          });
        });
      });
      return out;
    },
    score: (r) => r.mean,
    uncertainty: (r) => 2 * r.deviation,
  };
  return system;
}

/**
 * INVERSUS's rank points: the target is the bottom of the 99.7% range (rating - 3 deviations)
 * mapped from [minRating, maxRating] onto [0, maxRankPoints]; each game steps half way there, at
 * most maxRankPointsStep, up only on a win and down only on a loss, at least 1 point unless that
 * passes the top of the range; never negative. The upset bonus is left out, as its author advises.
 */
export function nextRankPoints(current: number, mean: number, deviation: number, score: number, params: Glicko2Params): number {
  const span = params.maxRating - params.minRating;
  const toPoints = (rating: number) =>
    (Math.min(params.maxRating, Math.max(params.minRating, rating)) - params.minRating) / span * params.maxRankPoints;
  const target = toPoints(mean - 3 * deviation);
  const ceiling = toPoints(mean + 3 * deviation);
  const cap = params.maxRankPointsStep;
  let step = Math.max(-cap, Math.min(cap, (target - current) / 2));
  if (score > 0.5) {
    step = Math.max(step, Math.min(1, ceiling - current));
    step = Math.max(0, step);
  } else if (score < 0.5) {
    step = Math.min(step, -1);
  }
  return Math.min(params.maxRankPoints, Math.max(0, current + step));
}
