/**
 * Issue 13's goal: at each baseline's own operating point, among our operating points that wait
 * no longer (mean and p99), the best mean gap is at least 20% lower. Computed, never asserted.
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
  readonly met: boolean;
}

export function checkGoals(points: readonly FrontierPoint[], required = 0.2): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const base of points) {
    if (base.matcher === 'gamefactory') continue;
    const ours = points
      .filter((p) => p.matcher === 'gamefactory' && p.rate === base.rate && p.meanWaitS <= base.meanWaitS && p.p99WaitS <= base.p99WaitS)
      .sort((a, b) => a.meanGapSigma - b.meanGapSigma)[0];
    const gapReduction = ours ? 1 - ours.meanGapSigma / base.meanGapSigma : NaN;
    checks.push({
      rate: base.rate,
      baseline: base.matcher,
      baselineSetting: base.setting,
      baselineGap: base.meanGapSigma,
      ours,
      gapReduction,
      met: gapReduction >= required,
    });
  }
  return checks;
}
