import { AS_SHIPPED, BASELINES, isOurs } from './operating-points.js';

/**
 * The frontier's goals (docs/match-quality.md), computed, never asserted: at each baseline's own
 * operating point, among our operating points that wait no longer (mean and p99), the best mean gap
 * is lower, and by at least 20% at at least half the points; and the factory as shipped sits on our
 * frontier: within 5% of our best gap among settings that wait no longer than it does.
 */
export interface FrontierPoint {
  readonly matcher: string;
  readonly setting: string;
  readonly rate: number;
  readonly games: number;
  readonly meanWaitS: number;
  readonly p99WaitS: number;
  readonly meanGapSigma: number;
  readonly p99GapSigma: number;
}

export interface GoalCheck {
  readonly rate: number;
  readonly baseline: string;
  readonly baselineSetting: string;
  readonly baselineGap: number;
  /** Our best point that waits no longer; undefined when none does. */
  readonly ours: FrontierPoint | undefined;
  /** 1 - ours / baseline; NaN without a point of ours. */
  readonly gapReduction: number;
  /** At least `required` lower. */
  readonly met: boolean;
  /** Lower at all. */
  readonly lower: boolean;
}

export interface GoalSummary {
  readonly points: number;
  /** Baseline points where our best gap is lower at all / by the required share. */
  readonly lower: number;
  readonly met: number;
  /** Lower at every point, and by the required share at at least half of them. */
  readonly achieved: boolean;
}

export interface ShippedCheck {
  readonly rate: number;
  readonly shipped: FrontierPoint;
  /** Our best other setting that waits no longer (mean and p99) than the shipped one. */
  readonly best: FrontierPoint | undefined;
  /** shipped gap / best gap - 1: how far above our frontier it sits (<= 0.05 is on it). */
  readonly excess: number;
  readonly onFrontier: boolean;
}

/** Our point with the least mean gap among those waiting no longer than `at` (mean and p99), other than `except`. */
function bestNoLonger(points: readonly FrontierPoint[], at: FrontierPoint, except?: FrontierPoint): FrontierPoint | undefined {
  let best: FrontierPoint | undefined;
  for (const p of points) {
    if (p === except || !isOurs(p.matcher) || p.rate !== at.rate) continue;
    if (p.meanWaitS > at.meanWaitS || p.p99WaitS > at.p99WaitS) continue;
    if (best === undefined || p.meanGapSigma < best.meanGapSigma) best = p;
  }
  return best;
}

export function checkGoals(points: readonly FrontierPoint[], required = 0.2): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const base of points) {
    if (!(BASELINES as readonly string[]).includes(base.matcher)) continue;
    const ours = bestNoLonger(points, base);
    const gapReduction = ours ? 1 - ours.meanGapSigma / base.meanGapSigma : NaN;
    checks.push({
      rate: base.rate,
      baseline: base.matcher,
      baselineSetting: base.setting,
      baselineGap: base.meanGapSigma,
      ours,
      gapReduction,
      met: gapReduction >= required,
      lower: gapReduction > 0,
    });
  }
  return checks;
}

export function summarizeGoals(checks: readonly GoalCheck[]): GoalSummary {
  const lower = checks.filter((c) => c.lower).length;
  const met = checks.filter((c) => c.met).length;
  return { points: checks.length, lower, met, achieved: lower === checks.length && 2 * met >= checks.length };
}

export function checkShipped(points: readonly FrontierPoint[], tolerance = 0.05): ShippedCheck[] {
  return points
    .filter((p) => p.matcher === AS_SHIPPED)
    .map((shipped) => {
      const best = bestNoLonger(points, shipped, shipped);
      const excess = best === undefined ? 0 : shipped.meanGapSigma / best.meanGapSigma - 1;
      return { rate: shipped.rate, shipped, best, excess, onFrontier: excess <= tolerance };
    });
}
