/**
 * Running mean and variance of the scores a factory sees (Welford's online algorithm), so
 * a game's skill gap can be expressed in standard deviations: "a good match is within
 * 0.2 sigma" (Battle.net talk, "Statistical Issues"). O(1) per score, numerically stable.
 */
export class ScoreDistribution {
  private count = 0;
  private runningMean = 0;
  private sumSquaredDeviations = 0;

  record(score: number): void {
    this.count += 1;
    const delta = score - this.runningMean;
    this.runningMean += delta / this.count;
    this.sumSquaredDeviations += delta * (score - this.runningMean);
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
