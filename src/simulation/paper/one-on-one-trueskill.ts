import { cdf, vWin, wWin } from '../../ratings/gaussian.js';
import { drawMargin } from '../../ratings/trueskill.js';
import type { TrueSkillParams } from '../../ratings/rating-system.js';

/**
 * TrueSkill's 1v1 win/loss update in closed form (Herbrich et al. 2006, the equations the paper
 * quotes, with the exact v and w instead of its approximations): c^2 = 2 beta^2 + sigma_w^2 +
 * sigma_l^2, t = (mu_w - mu_l) / c, and each mean moves by sigma^2 / c x v(t, eps / c), each
 * variance shrinks by sigma^2 / c^2 x w(t, eps / c), after the dynamics tau^2 are added. What
 * src/ratings' factor graph gives for two players of one, at a hundredth of its cost (a 10,000-step
 * experiment rates 15 million games); test/simulation/paper-experiment.test.ts holds them equal.
 * Writes into the arrays, winner first.
 */
export function rateOneOnOne(mu: Float64Array, sigma: Float64Array, winner: number, loser: number, params: TrueSkillParams): void {
  const tau2 = params.tau * params.tau;
  const varW = (sigma[winner] as number) ** 2 + tau2;
  const varL = (sigma[loser] as number) ** 2 + tau2;
  const c2 = 2 * params.beta * params.beta + varW + varL;
  const c = Math.sqrt(c2);
  const margin = drawMargin(params.drawProbability, 2, params.beta) / c;
  const t = ((mu[winner] as number) - (mu[loser] as number)) / c;
  const v = vWin(t, margin);
  const w = wWin(t, margin);
  mu[winner] = (mu[winner] as number) + (varW / c) * v;
  mu[loser] = (mu[loser] as number) - (varL / c) * v;
  sigma[winner] = Math.sqrt(varW * Math.max(1 - (varW / c2) * w, 1e-12));
  sigma[loser] = Math.sqrt(varL * Math.max(1 - (varL / c2) * w, 1e-12));
}

/** The chance the first player beats the second under TrueSkill's model. */
export function winProbability(muA: number, sigmaA: number, muB: number, sigmaB: number, beta: number): number {
  return cdf((muA - muB) / Math.sqrt(2 * beta * beta + sigmaA * sigmaA + sigmaB * sigmaB));
}
