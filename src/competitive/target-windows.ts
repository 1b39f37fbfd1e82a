import type { DensityView } from './arrival-density.js';
import type { CompetitiveTicket, WaitTarget } from './competitive-config.js';

/**
 * Score windows from a wait target instead of a hand-written schedule: each ticket's window comes
 * from the live arrival density near its score and its own wait, so a factory sits on the gap/wait
 * frontier at any arrival rate without retuning (docs/match-quality.md, "Wait targets").
 *
 * A ticket that has waited t accepts a partner up to
 *
 *     window = 1 / (tau * sqrt(typical * density(score))) * (1 + t / (growth * tau))
 *
 * where density is arrivals per ms per score unit near the ticket's score, typical is the density
 * the average arrival sees, tau a time scale and growth the shape's growth time in units of tau.
 * Why this form:
 * - 1 / sqrt(density): a ticket waiting for a partner within w sees them arrive at 2 w density (of
 *   its own region's arrivals where the factory has regions: those are its partners), so
 *   waiting longer buys a gap smaller by about 1 / (density x wait); weighing that against the wait
 *   gives a window proportional to 1 / sqrt(density) (an optimal-stopping argument, and the exponent
 *   that placed best in the simulator against 0, 0.25, 0.75 and 1). Windows widen where partners are
 *   rare (the tails of a skill distribution) and narrow where they are many.
 * - with density in the formula, a shape's mean wait, p99 wait and mean gap x arrival rate are
 *   fixed multiples of tau whatever the rate (measured at 2 and 20 players/s, within ~5%): WINDOW_SHAPES.
 *   A target picks the shape and tau that give the smallest gap its waits allow.
 * - until the density has seen a few dozen arrivals, and past its budget (the ticket's own, else
 *   twice the p99 target), a ticket takes any partner, and
 *   the pairing never leaves it behind for a younger one (pairWindow `budget`).
 */
export interface WindowShape {
  /** Growth time over tau: the window doubles after growth x tau of waiting. Infinity: it never grows. */
  readonly growth: number;
  /** Mean wait / tau, p99 wait / tau, and mean gap (in sigma) x arrivals per unit of tau, on a normal density. */
  readonly meanWait: number;
  readonly p99Wait: number;
  readonly gap: number;
}

/**
 * Measured with the simulator's frontier harness (steady Poisson arrivals, normal skills, 250 ms
 * batches, pairWindow budget), averaged over runs at 2 players/s (tau 40 s) and 20 players/s (tau
 * 1.5 and 6 s), waits less half a batch interval (mean) or one (p99). Fast growth buys p99 wait,
 * slow growth mean wait: gap x p99 is least near growth 0.1-0.25, gap x mean near Infinity.
 */
export const WINDOW_SHAPES: readonly WindowShape[] = [
  { growth: 0.06, meanWait: 0.0905, p99Wait: 0.47, gap: 8.48 },
  { growth: 0.12, meanWait: 0.118, p99Wait: 0.643, gap: 6.3 },
  { growth: 0.25, meanWait: 0.15, p99Wait: 0.87, gap: 4.63 },
  { growth: 0.5, meanWait: 0.184, p99Wait: 1.15, gap: 3.69 },
  { growth: 1, meanWait: 0.22, p99Wait: 1.49, gap: 3.06 },
  { growth: 2, meanWait: 0.25, p99Wait: 1.84, gap: 2.6 },
  { growth: 4, meanWait: 0.277, p99Wait: 2.22, gap: 2.33 },
  { growth: 8, meanWait: 0.295, p99Wait: 2.43, gap: 2.17 },
  { growth: 16, meanWait: 0.309, p99Wait: 2.69, gap: 2.08 },
  { growth: Infinity, meanWait: 0.326, p99Wait: 2.95, gap: 1.92 },
];

/** The shape a mean-gap target without a wait bound uses: between the mean- and p99-frugal ones. */
const GAP_TARGET_SHAPE = WINDOW_SHAPES.find((s) => s.growth === 2) as WindowShape;

/**
 * On a normal density, the arrival-weighted mean of 1 / sqrt(typical x density) is this many times
 * 1 / rate (in sigma): what turns a shape's `gap` into a multiple of the mean first window, so a
 * gap target holds on other densities too.
 */
const NORMAL_FIRST_WINDOW = 4.22;

/** How a factory's target becomes windows: the shape, and tau when the target fixes it. */
export interface TargetPlan {
  readonly shape: WindowShape;
  /** ms; undefined for a mean-gap target, whose tau follows the live density at each batch. */
  readonly tauMs: number | undefined;
  /** A mean-gap target's largest tau, ms: what its p99 wait bound allows. */
  readonly maxTauMs: number;
  /** Past this wait a ticket that brought no budget of its own takes any partner, ms. */
  readonly budgetMs: number;
}

/**
 * The shape and tau with the smallest expected gap whose expected waits meet the target: for each
 * shape, the largest tau under both wait targets (mean ~ half a batch + meanWait x tau, p99 ~ one
 * batch + p99Wait x tau), then the shape whose gap / tau is least. A target under the batch
 * interval gets a tau of a millisecond: every window is wide, everyone plays at the next batch.
 */
export function planTarget(target: WaitTarget, intervalMs: number, maxBudgetMs: number): TargetPlan {
  const { waitP99Ms, meanWaitMs } = target;
  const budgetMs = Math.min(maxBudgetMs, waitP99Ms !== undefined ? 2 * waitP99Ms : maxBudgetMs);
  if (target.meanGapSigma !== undefined) {
    const maxTauMs = waitP99Ms === undefined ? budgetMs : Math.max(1, (waitP99Ms - intervalMs) / GAP_TARGET_SHAPE.p99Wait);
    return { shape: GAP_TARGET_SHAPE, tauMs: undefined, maxTauMs, budgetMs };
  }
  let best: { shape: WindowShape; tauMs: number } | undefined;
  for (const shape of WINDOW_SHAPES) {
    const byP99 = waitP99Ms === undefined ? Infinity : (waitP99Ms - intervalMs) / shape.p99Wait;
    const byMean = meanWaitMs === undefined ? Infinity : (meanWaitMs - intervalMs / 2) / shape.meanWait;
    const tauMs = Math.max(1, Math.min(byP99, byMean));
    if (best === undefined || shape.gap / tauMs < best.shape.gap / best.tauMs) best = { shape, tauMs };
  }
  const chosen = best as { shape: WindowShape; tauMs: number };
  return { shape: chosen.shape, tauMs: chosen.tauMs, maxTauMs: chosen.tauMs, budgetMs };
}

/** One batch's windows: the density snapshot, tau at this batch and the factory's budget. */
export class TargetWindows {
  private readonly tauMs: number;

  constructor(
    private readonly density: DensityView,
    private readonly plan: TargetPlan,
    /** A mean-gap target in score units (sigmas times the factory's spread); undefined otherwise. */
    meanGap: number | undefined,
  ) {
    if (plan.tauMs !== undefined) {
      this.tauMs = plan.tauMs;
    } else {
      // gap ~ shape.gap / NORMAL_FIRST_WINDOW x the arrival-weighted mean first window, which is
      // meanInverseRoot / (tau sqrt(typical)): solved for tau.
      const { whole } = density;
      const firstWindowTimesTau = whole.meanInverseRoot / Math.sqrt(whole.typical);
      const tau = ((plan.shape.gap / NORMAL_FIRST_WINDOW) * firstWindowTimesTau) / (meanGap as number);
      this.tauMs = Math.min(plan.maxTauMs, Math.max(1, Number.isFinite(tau) ? tau : plan.maxTauMs));
    }
  }

  /** The score window of `ticket` (party score `score`) after waiting `waitMs`; Infinity past its budget. */
  windowOf(ticket: CompetitiveTicket, score: number, waitMs: number): number {
    const own = ticket.waitBudgetMs;
    const budget = own ?? this.plan.budgetMs;
    if (waitMs >= budget) return Infinity;
    // A ticket with its own budget gets the factory's shape stretched or squeezed to it.
    const tau = own === undefined ? this.tauMs : (this.tauMs * own) / this.plan.budgetMs;
    const density = this.density.forTicket(ticket);
    // Until the factory has seen a few dozen arrivals (just started, or just taken over) it cannot
    // tell a crowd from a desert: whoever is there plays, the youngest waits.
    if (!density.warm) return Infinity;
    const crowd = Math.sqrt(density.typical * density.at(score));
    if (!(crowd > 0)) return Infinity;
    return (1 / (tau * crowd)) * (1 + waitMs / (this.plan.shape.growth * tau));
  }
}
