import { RollingHistogram, quantile } from './log-histogram.js';
import { RollingCount, RollingWindow } from './rolling-window.js';
import type { FactorySnapshot, OperatorEvent, OperatorSource, ServerSnapshot } from './operator-source.js';
import { SeriesRing } from './series-ring.js';

/** Recent = the last minute, in 5-second slots; a server's start rate over the last 10 seconds. */
const RECENT_SLOTS = 12;
const RECENT_SLOT_MS = 5000;
const START_RATE_SLOTS = 10;
const START_RATE_SLOT_MS = 1000;
/** Chart history: one point a tick. */
export const TOTAL_POINTS = 300;
export const FACTORY_POINTS = 120;

export interface FactoryRow extends FactorySnapshot {
  readonly assignmentP50Ms: number | null;
  readonly assignmentP99Ms: number | null;
  readonly gamesPerMinute: number;
  /** Competitive: mean skill gap (sigma) of the games formed in the last minute. */
  readonly recentGapSigma: number | null;
  /**
   * Competitive: how the games formed in the last minute were predicted to go, the share of games
   * by the favourite's chance to win in FAVOURITE_BINS (and the mean chance): a coin toss is 0.5.
   */
  readonly recentFavourite: { readonly mean: number; readonly shares: readonly number[] } | null;
}

/** Lower edges of the bins of a game's predicted favourite win chance, the operator page's distribution. */
export const FAVOURITE_BINS = [0.5, 0.55, 0.6, 0.7, 0.8] as const;

export interface ServerRow extends ServerSnapshot {
  readonly startsPerSecond: number;
}

export interface Totals {
  readonly factories: number;
  readonly servers: number;
  readonly waitingTickets: number;
  readonly queueLength: number;
  readonly gamesPerMinute: number;
  readonly assignmentP50Ms: number | null;
  readonly assignmentP99Ms: number | null;
  readonly openGames: number;
  readonly openSlots: number;
  readonly running: number;
  readonly capacity: number;
  readonly startsPerSecond: number;
  readonly unhealthyServers: number;
}

/** Per-factory time series: the columns the page charts for one factory. */
export const FACTORY_SERIES = ['t', 'waitingTickets', 'queueLength', 'assignmentP99Ms', 'gamesPerMinute'] as const;
/** Totals over time: the columns of the page's main charts. */
export const TOTAL_SERIES = [
  't', 'waitingTickets', 'queueLength', 'assignmentP50Ms', 'assignmentP99Ms', 'gamesPerMinute', 'running', 'capacity', 'startsPerSecond',
] as const;

interface FactoryRecent {
  readonly assignment: RollingHistogram;
  readonly placed: RollingCount;
  readonly gaps: RollingWindow<{ sum: number; n: number }>;
  readonly favourites: RollingWindow<{ sum: number; bins: number[] }>;
  readonly series: SeriesRing;
}

/**
 * The page's state: every tick it reads the source's snapshot, joins it with what the events left
 * in rolling windows, and appends a point to each time series. Requests read the last tick only,
 * so a page polling every second costs one snapshot per tick, not per viewer.
 */
export class OperatorBoard {
  private readonly factoryRecent = new Map<string, FactoryRecent>();
  private readonly serverStarts = new Map<string, RollingCount>();
  private readonly allAssignments = new RollingHistogram(RECENT_SLOTS, RECENT_SLOT_MS);
  private readonly totalSeries = new SeriesRing(TOTAL_SERIES.length, TOTAL_POINTS);
  private factories: FactoryRow[] = [];
  private servers: ServerRow[] = [];
  private totals: Totals | undefined;
  private lastTick = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: OperatorSource,
    private readonly now: () => number,
  ) {
    this.unsubscribe = source.subscribe((event) => this.record(event));
  }

  close(): void {
    this.unsubscribe();
  }

  private recent(factory: string): FactoryRecent {
    let r = this.factoryRecent.get(factory);
    if (!r) {
      r = {
        assignment: new RollingHistogram(RECENT_SLOTS, RECENT_SLOT_MS),
        placed: new RollingCount(RECENT_SLOTS, RECENT_SLOT_MS),
        gaps: new RollingWindow(RECENT_SLOTS, RECENT_SLOT_MS, () => ({ sum: 0, n: 0 }), (v) => ((v.sum = 0), (v.n = 0))),
        favourites: new RollingWindow(
          RECENT_SLOTS,
          RECENT_SLOT_MS,
          () => ({ sum: 0, bins: FAVOURITE_BINS.map(() => 0) }),
          (v) => ((v.sum = 0), v.bins.fill(0)),
        ),
        series: new SeriesRing(FACTORY_SERIES.length, FACTORY_POINTS),
      };
      this.factoryRecent.set(factory, r);
    }
    return r;
  }

  private record(event: OperatorEvent): void {
    const now = this.now();
    switch (event.kind) {
      case 'find-finished':
        if (event.outcome === 'assigned') {
          this.recent(event.factory).assignment.add(now, event.elapsedMs);
          this.allAssignments.add(now, event.elapsedMs);
        }
        return;
      case 'placed':
        this.recent(event.factory).placed.add(now);
        return;
      case 'game-formed': {
        const slot = this.recent(event.factory).gaps;
        const g = slot.at(now);
        g.sum += event.gapInSigma;
        g.n += 1;
        const p = event.favouriteWinProbability;
        if (p !== undefined && Number.isFinite(p)) {
          const f = this.recent(event.factory).favourites.at(now);
          f.sum += p;
          let bin = FAVOURITE_BINS.length - 1;
          while (bin > 0 && p < (FAVOURITE_BINS[bin] as number)) bin -= 1;
          f.bins[bin]! += 1;
        }
        return;
      }
      case 'game-started': {
        let starts = this.serverStarts.get(event.serverId);
        if (!starts) this.serverStarts.set(event.serverId, (starts = new RollingCount(START_RATE_SLOTS, START_RATE_SLOT_MS)));
        starts.add(now);
        return;
      }
    }
  }

  /** Reads the source once and appends a point to every series. */
  tick(): void {
    const now = this.now();
    this.lastTick = now;
    const snapshot = this.source.snapshot(now);
    const live = new Set<string>();
    this.factories = snapshot.factories.map((f) => {
      live.add(f.name);
      const r = this.recent(f.name);
      let gapSum = 0;
      let gapN = 0;
      for (const g of r.gaps.live(now)) (gapSum += g.sum), (gapN += g.n);
      let favouriteSum = 0;
      const favouriteBins = FAVOURITE_BINS.map(() => 0);
      for (const f of r.favourites.live(now)) {
        favouriteSum += f.sum;
        f.bins.forEach((n, i) => (favouriteBins[i]! += n));
      }
      const favourites = favouriteBins.reduce((s, n) => s + n, 0);
      const row: FactoryRow = {
        ...f,
        assignmentP50Ms: r.assignment.quantile(now, 0.5),
        assignmentP99Ms: r.assignment.quantile(now, 0.99),
        gamesPerMinute: (r.placed.total(now) * 60_000) / r.placed.spanMs,
        recentGapSigma: gapN === 0 ? null : gapSum / gapN,
        recentFavourite: favourites === 0 ? null : { mean: favouriteSum / favourites, shares: favouriteBins.map((n) => n / favourites) },
      };
      r.series.push([now, row.waitingTickets, row.queueLength, row.assignmentP99Ms, row.gamesPerMinute]);
      return row;
    });
    // Factories that drained lose their history; events may have recreated one meanwhile.
    for (const name of this.factoryRecent.keys()) if (!live.has(name)) this.factoryRecent.delete(name);
    const serverIds = new Set<string>();
    this.servers = snapshot.servers.map((s) => {
      serverIds.add(s.serverId);
      const starts = this.serverStarts.get(s.serverId);
      return { ...s, startsPerSecond: starts ? (starts.total(now) * 1000) / starts.spanMs : 0 };
    });
    for (const id of this.serverStarts.keys()) if (!serverIds.has(id)) this.serverStarts.delete(id);
    const sum = <T>(rows: readonly T[], read: (row: T) => number) => rows.reduce((n, row) => n + read(row), 0);
    this.totals = {
      factories: this.factories.length,
      servers: this.servers.length,
      waitingTickets: sum(this.factories, (f) => f.waitingTickets),
      queueLength: sum(this.factories, (f) => f.queueLength),
      gamesPerMinute: sum(this.factories, (f) => f.gamesPerMinute),
      assignmentP50Ms: quantile(this.allAssignments.live(now), 0.5),
      assignmentP99Ms: quantile(this.allAssignments.live(now), 0.99),
      openGames: sum(this.factories, (f) => f.openGames),
      openSlots: sum(this.factories, (f) => f.openSlots),
      running: sum(this.servers, (s) => s.running),
      capacity: sum(this.servers, (s) => s.maxGames),
      startsPerSecond: sum(this.servers, (s) => s.startsPerSecond),
      unhealthyServers: sum(this.servers, (s) => (s.health === 'backed-off' ? 1 : 0)),
    };
    const t = this.totals;
    this.totalSeries.push([
      now, t.waitingTickets, t.queueLength, t.assignmentP50Ms, t.assignmentP99Ms, t.gamesPerMinute, t.running, t.capacity, t.startsPerSecond,
    ]);
  }

  get state() {
    return { at: this.lastTick, totals: this.totals, factories: this.factories, servers: this.servers };
  }

  totalsSeries(): (number | null)[][] {
    return this.totalSeries.columns();
  }

  factorySeries(name: string): (number | null)[][] | undefined {
    return this.factoryRecent.get(name)?.series.columns();
  }
}
