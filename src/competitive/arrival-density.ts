import type { CompetitiveTicket } from './competitive-config.js';
import { ScoreDistribution } from './score-distribution.js';

/**
 * How many tickets arrive per millisecond near a score: the live arrival rate and score density a
 * wait target turns into windows (target-windows.ts). A ticket whose neighbours in score are rare
 * must accept a wider gap to be matched within its budget; one among many can afford to wait for a
 * close partner.
 *
 * A histogram of arrivals over score, bins an eighth of the scores' spread wide, each count fading
 * with time constant `horizonMs` (exponential forgetting, so the rate follows a daily curve but not
 * every burst). The density at a score is the counts around its bin divided by their width and the
 * horizon: widened bin by bin until it holds `neighbours` arrivals (k-nearest-neighbour smoothing),
 * so the sparse tails of the distribution are not read as empty. O(1) per arrival; a snapshot for a
 * batch costs O(bins), a look-up O(1).
 */
export class ArrivalDensity {
  /** Bins either side of the anchor: scores beyond 8 spreads from it fall in the edge bins. */
  private static readonly halfBins = 64;
  private static readonly binsPerSigma = 8;
  /** Arrivals a density estimate is made of, at least, where there are that many. */
  private static readonly neighbours = 24;
  /** Forgetting is applied lazily: weights grow as e^(t/horizon) until they are renormalised. */
  private static readonly renormaliseAfter = 30;

  private readonly spread = new ScoreDistribution();
  private readonly counts = new Float64Array(2 * ArrivalDensity.halfBins);
  /** Per bin, the faded sum of the values recorded with the arrivals (meanNear). */
  private readonly values = new Float64Array(2 * ArrivalDensity.halfBins);
  /** Scores of the first arrivals, binned once the spread is known. */
  private pending: { score: number; at: number; value: number }[] = [];
  private origin = 0;
  private width = 0;
  private anchored = false;
  /** Weights are e^((at - epoch) / horizon). */
  private epoch: number | undefined;
  private firstAt: number | undefined;
  private lastAt: number | undefined;

  constructor(private readonly horizonMs = 300_000) {}

  /** An arrival at `score`, time `at`, with a value meanNear averages (a wait, say). */
  record(score: number, at: number, value = 0): void {
    this.spread.record(score);
    this.firstAt = this.firstAt === undefined ? at : Math.min(this.firstAt, at);
    if (!this.anchored) {
      this.pending.push({ score, at, value });
      if (this.pending.length >= ArrivalDensity.neighbours) this.anchor();
      return;
    }
    this.add(score, at, value);
  }

  /**
   * The faded mean of the values recorded near `score` (its bin, widened until it holds
   * `neighbours` records), or undefined before any. O(bins).
   */
  meanNear(score: number): number | undefined {
    if (!this.anchored) {
      if (this.pending.length === 0) return undefined;
      return this.pending.reduce((s, p) => s + p.value, 0) / this.pending.length;
    }
    const n = this.counts.length;
    const b = this.binOf(score);
    let count = this.counts[b] as number;
    let sum = this.values[b] as number;
    for (let r = 1; count < ArrivalDensity.neighbours * this.weightNow() && (b - r >= 0 || b + r < n); r++) {
      if (b - r >= 0) (count += this.counts[b - r] as number), (sum += this.values[b - r] as number);
      if (b + r < n) (count += this.counts[b + r] as number), (sum += this.values[b + r] as number);
    }
    return count > 0 ? sum / count : undefined;
  }

  /** What one record weighs now in the stored (unfaded) counts: e^((last - epoch) / horizon). */
  private weightNow(): number {
    return this.epoch === undefined || this.lastAt === undefined ? 1 : Math.exp((this.lastAt - this.epoch) / this.horizonMs);
  }

  /** The density around every bin at `now`, for one batch's windows. */
  snapshot(now: number): DensitySnapshot {
    if (!this.anchored) return this.earlySnapshot(now);
    if (this.drifted()) this.rebin();
    const span = this.effectiveSpan(now);
    const fade = this.epoch === undefined ? 0 : Math.exp(-(now - this.epoch) / this.horizonMs);
    const n = this.counts.length;
    const prefix = new Float64Array(n + 1);
    for (let b = 0; b < n; b++) prefix[b + 1] = (prefix[b] as number) + (this.counts[b] as number) * fade;
    const total = prefix[n] as number;
    const density = new Float64Array(n);
    let lo = 0;
    let hi = n - 1;
    while (lo < n && (this.counts[lo] as number) === 0) lo += 1;
    while (hi >= 0 && (this.counts[hi] as number) === 0) hi -= 1;
    let weighted = 0;
    let inverseRoots = 0;
    for (let b = 0; b < n; b++) {
      // Widen around the bin until it holds enough arrivals or covers every bin that has any.
      let r = 0;
      const need = Math.min(ArrivalDensity.neighbours, total);
      let from = b;
      let to = b + 1;
      while ((prefix[to] as number) - (prefix[from] as number) < need && (from > lo || to <= hi)) {
        r += 1;
        from = Math.max(0, b - r);
        to = Math.min(n, b + r + 1);
      }
      const inside = (prefix[to] as number) - (prefix[from] as number);
      const value = inside / (span * (2 * r + 1) * this.width);
      density[b] = value;
      const share = (this.counts[b] as number) * fade;
      weighted += share * value;
      if (share > 0) inverseRoots += share / Math.sqrt(value);
    }
    return new DensitySnapshot(
      density,
      this.origin,
      this.width,
      total > 0 ? weighted / total : 0,
      total > 0 ? inverseRoots / total : Infinity,
      total / span,
      true,
    );
  }

  /** Fewer arrivals than a density needs: one uniform density over the spread seen so far. */
  private earlySnapshot(now: number): DensitySnapshot {
    const span = this.effectiveSpan(now);
    const count = this.pending.length;
    const width = Math.max(4 * this.spread.stdDev, floorWidth(this.spread.mean));
    const value = count / (span * width);
    return new DensitySnapshot(Float64Array.of(value), this.spread.mean, Infinity, value, 1 / Math.sqrt(value), count / span, false);
  }

  /** The horizon the decayed counts cover: shorter than horizonMs while the first arrival is recent. */
  private effectiveSpan(now: number): number {
    const since = Math.max(0, now - (this.firstAt ?? now));
    return Math.max(1, this.horizonMs * -Math.expm1(-since / this.horizonMs));
  }

  private anchor(): void {
    this.origin = this.spread.mean;
    this.width = Math.max(this.spread.stdDev, floorWidth(this.spread.mean)) / ArrivalDensity.binsPerSigma;
    this.anchored = true;
    const pending = this.pending;
    this.pending = [];
    for (const { score, at, value } of pending) this.add(score, at, value);
  }

  /** The spread moved far from the one bins were cut for (a new season, a rescaled rating). */
  private drifted(): boolean {
    const sigma = Math.max(this.spread.stdDev, floorWidth(this.spread.mean));
    const binned = this.width * ArrivalDensity.binsPerSigma;
    return sigma > 2 * binned || sigma < binned / 2 || Math.abs(this.spread.mean - this.origin) > 2 * binned;
  }

  /** New bins for the current spread; each old bin's count moves to the bin holding its centre. */
  private rebin(): void {
    const old = Float64Array.from(this.counts);
    const oldValues = Float64Array.from(this.values);
    const oldOrigin = this.origin;
    const oldWidth = this.width;
    this.counts.fill(0);
    this.values.fill(0);
    this.origin = this.spread.mean;
    this.width = Math.max(this.spread.stdDev, floorWidth(this.spread.mean)) / ArrivalDensity.binsPerSigma;
    for (let b = 0; b < old.length; b++) {
      const count = old[b] as number;
      if (count > 0) {
        const to = this.binOf(oldOrigin + (b - ArrivalDensity.halfBins + 0.5) * oldWidth);
        this.counts[to]! += count;
        this.values[to]! += oldValues[b] as number;
      }
    }
  }

  private add(score: number, at: number, value: number): void {
    if (this.epoch === undefined) this.epoch = at;
    this.lastAt = this.lastAt === undefined ? at : Math.max(this.lastAt, at);
    let exponent = (at - this.epoch) / this.horizonMs;
    if (exponent > ArrivalDensity.renormaliseAfter) {
      const fade = Math.exp(-exponent);
      for (let b = 0; b < this.counts.length; b++) {
        this.counts[b] = (this.counts[b] as number) * fade;
        this.values[b] = (this.values[b] as number) * fade;
      }
      this.epoch = at;
      exponent = 0;
    }
    const weight = Math.exp(exponent);
    const b = this.binOf(score);
    this.counts[b]! += weight;
    this.values[b]! += weight * value;
  }

  private binOf(score: number): number {
    const b = Math.floor((score - this.origin) / this.width) + ArrivalDensity.halfBins;
    return Math.min(this.counts.length - 1, Math.max(0, b));
  }
}

/** One batch's view of the density: arrivals per ms per score unit near a score. */
export class DensitySnapshot {
  constructor(
    private readonly density: Float64Array,
    private readonly origin: number,
    private readonly width: number,
    /** The density the average arrival sees (arrival-weighted mean); 0 before any arrival. */
    readonly typical: number,
    /** The arrival-weighted mean of 1 / sqrt(density): what the mean first window scales with. */
    readonly meanInverseRoot: number,
    /** Arrivals per ms over the horizon. */
    readonly ratePerMs: number,
    /**
     * Whether enough arrivals were seen to tell a crowd from a desert (`neighbours` of them): before,
     * a spread estimated from two or three scores makes any density look dense.
     */
    readonly warm: boolean,
  ) {}

  /** Interpolated between the centres of the two nearest bins, so a bin's edge is not a step. */
  at(score: number): number {
    const last = this.density.length - 1;
    if (last === 0) return this.density[0] as number;
    const x = Math.min(last, Math.max(0, (score - this.origin) / this.width + this.density.length / 2 - 0.5));
    const b = Math.min(last - 1, Math.floor(x));
    const frac = x - b;
    return (1 - frac) * (this.density[b] as number) + frac * (this.density[b + 1] as number);
  }
}

/** The smallest spread bins are cut for: scores that are all equal still get a bin width > 0. */
function floorWidth(centre: number): number {
  return 1e-3 * Math.max(1, Math.abs(centre));
}

/**
 * Arrivals counted per region as well: a factory with regions pairs a ticket mostly with players
 * near its own best region (latency above what a ticket has elsewhere costs, budget-pairing.ts), so
 * its partners are that region's arrivals, not everyone's. A ticket is counted in the region of its
 * lowest latency (measured, or the locality prior); one without any, only in the whole.
 */
export class RegionalDensity {
  private readonly whole = new ArrivalDensity();
  private readonly byRegion = new Map<string, ArrivalDensity>();

  constructor(private readonly regions: readonly string[]) {
    for (const region of regions) this.byRegion.set(region, new ArrivalDensity());
  }

  record(ticket: CompetitiveTicket, score: number, at: number): void {
    this.whole.record(score, at);
    const region = nearestRegion(ticket, this.regions);
    if (region !== undefined) this.byRegion.get(region)?.record(score, at);
  }

  /** Every region's density at `now`, made when first asked for in the batch. */
  snapshot(now: number): DensityView {
    return new DensityView(this.whole.snapshot(now), (region) => this.byRegion.get(region)?.snapshot(now), this.regions);
  }
}

/** One batch's densities: the whole factory's, and the one that counts for a given ticket. */
export class DensityView {
  private readonly regional = new Map<string, DensitySnapshot | undefined>();

  constructor(
    readonly whole: DensitySnapshot,
    private readonly take: (region: string) => DensitySnapshot | undefined,
    private readonly regions: readonly string[],
  ) {}

  /** A factory without regions: the one density counts for every ticket. */
  static of(whole: DensitySnapshot): DensityView {
    return new DensityView(whole, () => undefined, []);
  }

  forTicket(ticket: CompetitiveTicket): DensitySnapshot {
    if (this.regions.length === 0) return this.whole;
    const region = nearestRegion(ticket, this.regions);
    if (region === undefined) return this.whole;
    let snapshot = this.regional.get(region);
    if (!this.regional.has(region)) this.regional.set(region, (snapshot = this.take(region)));
    // A region that has seen too few arrivals yet reads the whole factory's.
    return snapshot !== undefined && snapshot.warm ? snapshot : this.whole;
  }
}

/** The configured region with the ticket's lowest latency; undefined when it has none. */
function nearestRegion(ticket: CompetitiveTicket, regions: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestMs = Infinity;
  for (const region of regions) {
    const ms = ticket.latencyMs.get(region);
    if (ms !== undefined && ms < bestMs) {
      best = region;
      bestMs = ms;
    }
  }
  return best;
}
