/**
 * When to run one full, compacting garbage collection after a burst of arrivals has settled: what V8's memory
 * reducer would do if Node 20's V8 ran it in an idle process (perf/PROFILE.md, "Eighth phase" and
 * "Ninth phase"). V8 schedules its next mark-compact at up to 4× the heap the last one left, so a
 * burst of tickets leaves the old space full of its garbage until enough allocation brings the
 * next one; an idle coordinator never gets there, and its RSS stays at the burst's high-water mark.
 *
 * Pure: the clock, the arrivals counted so far and the heap in use are passed in; the adapter
 * (settle-collector.ts) reads them, calls the collector and reports what it did.
 */

export interface SettleCollectionSettings {
  /** No arrival for this long means the burst has settled. */
  readonly quietMs: number;
  /** The old generation must have grown at least this much past what the last mark-compact left... */
  readonly minGrowthBytes: number;
  /** ...and by at least this share of what that mark-compact left (a collection marks the whole live heap). */
  readonly minGrowthRatio: number;
  /** Never two of ours closer than this. */
  readonly minIntervalMs: number;
  /** Nor more than this share of wall time in our pauses: after a pause p the next waits p / share. */
  readonly maxPauseShare: number;
  /**
   * Nor one whose pause would likely be longer than this: the node answers nobody meanwhile, and
   * a cluster node's shard leases last 2 s. The pause grows with the heap (~2–4 ms a MB here), so
   * a node holding a million waiting tickets (~1 GB) is left to V8 unless this is raised.
   */
  readonly maxPauseMs: number;
}

/** What a compacting collection costs before we have timed one here: ms per MB of old generation in use (perf/PROFILE.md, ninth phase: 1.4–4.3 measured). */
export const PRIOR_PAUSE_MS_PER_MB = 2.5;

export const DEFAULT_SETTLE_COLLECTION: SettleCollectionSettings = {
  quietMs: 1_500,
  minGrowthBytes: 32 * 1024 * 1024,
  minGrowthRatio: 0.25,
  minIntervalMs: 30_000,
  maxPauseShare: 0.02,
  maxPauseMs: 500,
};

/**
 * The old generation (every space but the young one, whose semi-spaces stay committed whatever
 * is collected): what its pages hold, and what is in use in them.
 */
export interface HeapReading {
  readonly committedBytes: number;
  readonly usedBytes: number;
}

export class SettleCollectionPolicy {
  private arrivals = 0;
  private lastArrivalAt: number;
  /** An arrival since our last collection: only a burst that happened is a burst to settle. */
  private arrivedSinceCollection = false;
  /** In use after the last mark-compact, V8's own or ours: the live heap as last known. */
  private baseHeapBytes: number;
  private notBefore = Number.NEGATIVE_INFINITY;
  /** Pause per byte in use, as our last collection measured it (a prior until then). */
  private pauseMsPerByte = PRIOR_PAUSE_MS_PER_MB / (1024 * 1024);

  constructor(
    private readonly settings: SettleCollectionSettings,
    now: number,
    heap: HeapReading,
  ) {
    this.lastArrivalAt = now;
    this.baseHeapBytes = heap.usedBytes;
  }

  /**
   * One look, every few hundred ms: `arrivals` is a running count of tickets taken in (only its
   * changes matter). True: collect now, then report it with `collected`.
   */
  tick(now: number, arrivals: number, heap: HeapReading): boolean {
    if (arrivals !== this.arrivals) {
      this.arrivals = arrivals;
      this.lastArrivalAt = now;
      this.arrivedSinceCollection = true;
      return false;
    }
    if (!this.arrivedSinceCollection || now - this.lastArrivalAt < this.settings.quietMs || now < this.notBefore) return false;
    return this.grownEnough(heap);
  }

  /**
   * How far the old generation's pages have grown past the live heap the last mark-compact left:
   * the garbage since (in use, not live) and the free room in pages V8 kept (committed, not in
   * use; after V8's own mark-compact late in a burst most of it is holes in pages that still hold
   * live tickets, which only a compacting collection gives back). Never below 0.
   */
  growthBytes(heap: HeapReading): number {
    return Math.max(0, heap.committedBytes - this.baseHeapBytes);
  }

  /** V8 ran a mark-compact of its own: what it left in use is the new base. */
  markCompacted(heap: HeapReading): void {
    this.baseHeapBytes = heap.usedBytes;
  }

  /** How long a collection now would likely pause, by the heap in use and the last one's rate. */
  estimatedPauseMs(heap: HeapReading): number {
    return heap.usedBytes * this.pauseMsPerByte;
  }

  /** We collected at `now`, pausing `pauseMs`, leaving `heap`; `before`: the heap it started from (its pause is learned per byte). */
  collected(now: number, pauseMs: number, heap: HeapReading, before?: HeapReading): void {
    if (before && before.usedBytes > 0) this.pauseMsPerByte = pauseMs / before.usedBytes;
    this.baseHeapBytes = heap.usedBytes;
    this.arrivedSinceCollection = false;
    this.notBefore = now + Math.max(this.settings.minIntervalMs, pauseMs / this.settings.maxPauseShare);
  }

  private grownEnough(heap: HeapReading): boolean {
    const growth = this.growthBytes(heap);
    return growth >= this.settings.minGrowthBytes && growth >= this.settings.minGrowthRatio * this.baseHeapBytes && this.estimatedPauseMs(heap) <= this.settings.maxPauseMs;
  }
}
