/**
 * Running mean and variance of the scores a factory sees, so a game's skill gap can be expressed
 * in standard deviations: "a good match is within 0.2 sigma" (Battle.net talk, "Statistical
 * Issues"). O(1) per score.
 *
 * Welford's online algorithm over winsorized scores (a Huber-style estimate), so one extreme score
 * cannot poison the statistics for good (a fuzzed score of 1e308 once made every window infinite): the first `warmup` scores are kept
 * and clamped around their median (median ± 5 scaled MADs), then each new score is clamped to
 * mean ± 5 sigma before it is counted. A real shift of the population still moves the estimate:
 * every clamped score pulls the mean and widens sigma a little, so the band follows the data.
 */
export class ScoreDistribution {
  private static readonly warmup = 16;
  private static readonly fenceSigmas = 5;
  /** Consistency constant: MAD * 1.4826 estimates sigma for normally distributed scores. */
  private static readonly madToSigma = 1.4826;

  private readonly firstScores: number[] = [];
  private count = 0;
  private runningMean = 0;
  private sumSquaredDeviations = 0;

  record(score: number): void {
    if (this.firstScores.length < ScoreDistribution.warmup) {
      this.firstScores.push(score);
      this.restartFrom(this.firstScores);
      return;
    }
    const band = ScoreDistribution.fenceSigmas * Math.max(this.stdDev, ScoreDistribution.floor(this.runningMean));
    this.add(Math.min(this.runningMean + band, Math.max(this.runningMean - band, score)));
  }

  get samples(): number {
    return this.count;
  }

  get mean(): number {
    return this.runningMean;
  }

  /** Population standard deviation; 0 until two scores have been seen. */
  get stdDev(): number {
    return this.count < 2 ? 0 : Math.sqrt(this.sumSquaredDeviations / this.count);
  }

  /** A gap expressed in standard deviations; 0 while the spread is still unknown. */
  inSigma(gap: number): number {
    const sigma = this.stdDev;
    return sigma > 0 ? gap / sigma : 0;
  }

  /** Recomputes the estimate from the first scores, clamped around their median (at most `warmup`). */
  private restartFrom(scores: readonly number[]): void {
    const sorted = [...scores].sort((a, b) => a - b);
    const median = middle(sorted);
    const mad = middle(sorted.map((x) => Math.abs(x - median)).sort((a, b) => a - b));
    const band = ScoreDistribution.fenceSigmas * Math.max(ScoreDistribution.madToSigma * mad, ScoreDistribution.floor(median));
    this.count = 0;
    this.runningMean = 0;
    this.sumSquaredDeviations = 0;
    for (const x of scores) this.add(Math.min(median + band, Math.max(median - band, x)));
  }

  private add(score: number): void {
    this.count += 1;
    const delta = score - this.runningMean;
    this.runningMean += delta / this.count;
    this.sumSquaredDeviations += delta * (score - this.runningMean);
  }

  /**
   * The smallest sigma the clamp assumes: while every score seen is the same (new players all at a
   * default rating) the band is not zero, so a real spread arriving later widens it step by step.
   */
  private static floor(centre: number): number {
    return 1e-3 * Math.max(1, Math.abs(centre));
  }
}

function middle(sorted: readonly number[]): number {
  const n = sorted.length;
  return n % 2 === 1 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
}

/**
 * Fixed-bin histogram of gaps in sigma (0.01 sigma bins up to 20 sigma, then one overflow bin),
 * so p99 costs O(bins) however many games were formed, and recording costs O(1).
 */
export class GapHistogram {
  private static readonly binWidth = 0.01;
  private static readonly bins = 2000;
  private readonly counts = new Uint32Array(GapHistogram.bins + 1);
  private total = 0;
  private sum = 0;

  record(gapInSigma: number): void {
    const bin = Math.min(GapHistogram.bins, Math.floor(Math.max(0, gapInSigma) / GapHistogram.binWidth));
    this.counts[bin] = (this.counts[bin] ?? 0) + 1;
    this.total += 1;
    this.sum += gapInSigma;
  }

  get mean(): number {
    return this.total === 0 ? 0 : this.sum / this.total;
  }

  /** Upper edge of the bin holding quantile q (0..1); 0 when empty. */
  quantile(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil(q * this.total);
    let seen = 0;
    for (let bin = 0; bin <= GapHistogram.bins; bin++) {
      seen += this.counts[bin] ?? 0;
      if (seen >= rank) return (bin + 1) * GapHistogram.binWidth;
    }
    return (GapHistogram.bins + 1) * GapHistogram.binWidth;
  }
}
