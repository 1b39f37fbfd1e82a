import { cdf, Gaussian, ppf, vDraw, vWin, wDraw, wWin } from './gaussian.js';
import { ratingOf, type GameOutcome, type PlayerRating, type RatingSystem, type TrueSkillParams } from './rating-system.js';
import { LikelihoodFactor, PriorFactor, SumFactor, TruncateFactor, Variable } from './trueskill-graph.js';

export interface Skill {
  readonly mu: number;
  readonly sigma: number;
}

const MIN_DELTA = 0.0001;
const MAX_ITERATIONS = 10;

/** Half-width of the draw zone for a comparison between `players` players (TrueSkill paper, eq. for epsilon). */
export function drawMargin(drawProbability: number, players: number, beta: number): number {
  return ppf((drawProbability + 1) / 2) * Math.sqrt(players) * beta;
}

/**
 * New skills after one game: teams of any size, any number of teams, ranks with ties (draws).
 * Expectation propagation on the factor graph, scheduled as the reference implementation does:
 * down the prior, performance and team layers, iterate on the team differences, then back up.
 */
export function trueskillRate(teams: readonly (readonly Skill[])[], ranks: readonly number[], params: TrueSkillParams): Skill[][] {
  if (teams.length < 2) return teams.map((t) => t.map((s) => ({ ...s })));
  const order = teams.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]!);
  const sorted = order.map((i) => teams[i]!);
  const sortedRanks = order.map((i) => ranks[i]!);

  const skills = sorted.map((t) => t.map(() => new Variable()));
  const perfs = sorted.map((t) => t.map(() => new Variable()));
  const teamPerfs = sorted.map(() => new Variable());
  const diffs = sorted.slice(1).map(() => new Variable());

  const priors = sorted.flatMap((t, i) => t.map((s, k) => new PriorFactor(skills[i]![k]!, Gaussian.of(s.mu, s.sigma), params.tau)));
  const likelihoods = sorted.flatMap((t, i) => t.map((_, k) => new LikelihoodFactor(skills[i]![k]!, perfs[i]![k]!, params.beta ** 2)));
  const teamSums = sorted.map((t, i) => new SumFactor(teamPerfs[i]!, perfs[i]!, t.map(() => 1)));
  const diffSums = diffs.map((d, i) => new SumFactor(d, [teamPerfs[i]!, teamPerfs[i + 1]!], [1, -1]));
  const truncates = diffs.map((d, i) => {
    const margin = drawMargin(params.drawProbability, sorted[i]!.length + sorted[i + 1]!.length, params.beta);
    return sortedRanks[i] === sortedRanks[i + 1]
      ? new TruncateFactor(d, vDraw, wDraw, margin)
      : new TruncateFactor(d, vWin, wWin, margin);
  });

  for (const f of priors) f.down();
  for (const f of likelihoods) f.down();
  for (const f of teamSums) f.down();

  const last = diffSums.length - 1;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let delta = 0;
    if (diffSums.length === 1) {
      diffSums[0]!.down();
      delta = truncates[0]!.up();
    } else {
      for (let x = 0; x < last; x++) {
        diffSums[x]!.down();
        delta = Math.max(delta, truncates[x]!.up());
        diffSums[x]!.up(1);
      }
      for (let x = last; x > 0; x--) {
        diffSums[x]!.down();
        delta = Math.max(delta, truncates[x]!.up());
        diffSums[x]!.up(0);
      }
    }
    if (delta <= MIN_DELTA) break;
  }
  diffSums[0]!.up(0);
  diffSums[last]!.up(1);
  teamSums.forEach((f, i) => sorted[i]!.forEach((_, k) => f.up(k)));
  for (const f of likelihoods) f.up();

  const out: Skill[][] = teams.map(() => []);
  order.forEach((original, i) => {
    out[original] = skills[i]!.map((v) => ({ mu: v.value.mu, sigma: v.value.sigma }));
  });
  return out;
}

/**
 * Match quality: the probability of a draw relative to the most even game possible (TrueSkill
 * paper, section 5; teams in the given order, every weight 1). 1 is perfectly even.
 */
export function trueskillQuality(teams: readonly (readonly Skill[])[], params: Pick<TrueSkillParams, 'beta'>): number {
  const flat = teams.flat();
  const n = flat.length;
  const m = teams.length - 1;
  // A: n x m, column j = +1 for team j's players, -1 for team j+1's.
  const a: number[][] = flat.map(() => new Array<number>(m).fill(0));
  let offset = 0;
  const starts = teams.map((t) => {
    const s = offset;
    offset += t.length;
    return s;
  });
  for (let j = 0; j < m; j++) {
    for (let k = 0; k < teams[j]!.length; k++) a[starts[j]! + k]![j] = 1;
    for (let k = 0; k < teams[j + 1]!.length; k++) a[starts[j + 1]! + k]![j] = -1;
  }
  const beta2 = params.beta ** 2;
  // ata = beta^2 AᵀA, atsa = AᵀΣA, middle = ata + atsa (m x m).
  const ata = square(m, (r, c) => beta2 * sumOver(n, (i) => a[i]![r]! * a[i]![c]!));
  const middle = square(m, (r, c) => ata[r]![c]! + sumOver(n, (i) => a[i]![r]! * flat[i]!.sigma ** 2 * a[i]![c]!));
  const start = Array.from({ length: m }, (_, c) => sumOver(n, (i) => flat[i]!.mu * a[i]![c]!));
  const solved = solve(middle, start);
  const eArg = -0.5 * sumOver(m, (i) => start[i]! * solved[i]!);
  const sArg = determinant(ata) / determinant(middle);
  return Math.exp(eArg) * Math.sqrt(sArg);
}

/** The chance the first team beats the second (difference of summed performances above 0). */
export function trueskillWinProbability(a: readonly Skill[], b: readonly Skill[], params: Pick<TrueSkillParams, 'beta'>): number {
  const diff = a.reduce((s, p) => s + p.mu, 0) - b.reduce((s, p) => s + p.mu, 0);
  const variance = [...a, ...b].reduce((s, p) => s + p.sigma ** 2, 0) + (a.length + b.length) * params.beta ** 2;
  return cdf(diff / Math.sqrt(variance));
}

const sumOver = (n: number, f: (i: number) => number) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += f(i);
  return s;
};
const square = (m: number, f: (r: number, c: number) => number) =>
  Array.from({ length: m }, (_, r) => Array.from({ length: m }, (_, c) => f(r, c)));

/** Gaussian elimination with partial pivoting on a small matrix; returns [upper, sign]. */
function eliminate(matrix: readonly number[][], rhs?: number[]): { rows: number[][]; sign: number; rhs?: number[] } {
  const rows = matrix.map((r) => [...r]);
  const b = rhs ? [...rhs] : undefined;
  let sign = 1;
  const m = rows.length;
  for (let col = 0; col < m; col++) {
    let pivot = col;
    for (let r = col + 1; r < m; r++) if (Math.abs(rows[r]![col]!) > Math.abs(rows[pivot]![col]!)) pivot = r;
    if (pivot !== col) {
      [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
      if (b) [b[col], b[pivot]] = [b[pivot]!, b[col]!];
      sign = -sign;
    }
    for (let r = col + 1; r < m; r++) {
      const factor = rows[r]![col]! / rows[col]![col]!;
      for (let c = col; c < m; c++) rows[r]![c]! -= factor * rows[col]![c]!;
      if (b) b[r]! -= factor * b[col]!;
    }
  }
  return { rows, sign, rhs: b };
}

function determinant(matrix: readonly number[][]): number {
  const { rows, sign } = eliminate(matrix);
  return rows.reduce((p, r, i) => p * r[i]!, sign);
}

function solve(matrix: readonly number[][], rhs: readonly number[]): number[] {
  const { rows, rhs: b } = eliminate(matrix, [...rhs]);
  const x = new Array<number>(rows.length).fill(0);
  for (let r = rows.length - 1; r >= 0; r--) {
    let s = b![r]!;
    for (let c = r + 1; c < rows.length; c++) s -= rows[r]![c]! * x[c]!;
    x[r] = s / rows[r]![r]!;
  }
  return x;
}

/** TrueSkill for ladders: score is the mean; the leaderboard uses the conservative mu - 3 sigma. */
export function trueskillSystem(params: TrueSkillParams): RatingSystem {
  const system: RatingSystem = {
    name: 'trueskill',
    initial: (): PlayerRating => ({ mean: params.mu, deviation: params.sigma, games: 0 }),
    update(outcome: GameOutcome, ratings) {
      const before = outcome.teams.map((team) => team.map((p) => ratingOf(ratings, p, system)));
      const after = trueskillRate(
        before.map((team) => team.map((r) => ({ mu: r.mean, sigma: r.deviation }))),
        outcome.ranks,
        params,
      );
      const out = new Map<string, PlayerRating>();
      outcome.teams.forEach((team, i) =>
        team.forEach((player, k) => {
          const s = after[i]![k]!;
          out.set(player, { mean: s.mu, deviation: s.sigma, games: before[i]![k]!.games + 1, lastPlayedDay: outcome.day });
        }),
      );
      return out;
    },
    score: (r) => r.mean,
    uncertainty: (r) => 2 * r.deviation,
  };
  return system;
}
