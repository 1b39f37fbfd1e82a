import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CoordinatorEvents, CoordinatorView } from '../coordinator/edges/index.js';

/** Competitive backfill in /metrics: requests made and how they ended (events), open ones (read at scrape time). */
export class BackfillMetrics {
  private view: CoordinatorView | undefined;
  private readonly requests: Counter<'factory'>;
  private readonly ended: Counter<'factory' | 'outcome'>;
  private readonly wait: Histogram<'factory'>;

  constructor(registers: Registry[]) {
    this.requests = new Counter({
      name: 'gamefactory_backfill_requests_total',
      help: 'Backfill requests game servers made (or sent again), by factory',
      labelNames: ['factory'],
      registers,
    });
    this.ended = new Counter({
      name: 'gamefactory_backfill_ended_total',
      help: 'Backfill requests ended, by factory and outcome (filled, cancelled, expired, gameEnded, refused)',
      labelNames: ['factory', 'outcome'],
      registers,
    });
    this.wait = new Histogram({
      name: 'gamefactory_backfill_wait_seconds',
      help: 'How long filled backfill requests waited',
      labelNames: ['factory'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    });
    const self = this;
    new Gauge({
      name: 'gamefactory_backfill_open_requests',
      help: 'Backfill requests open (waiting for tickets, or for their server to re-announce their game)',
      registers,
      collect(this: Gauge) {
        const open = self.view?.snapshot().backfillRequests;
        if (open !== undefined) this.set(open);
      },
    });
  }

  attach(view: CoordinatorView, events: CoordinatorEvents): void {
    this.view = view;
    events.on('backfillRequested', (e) => this.requests.inc({ factory: e.factory }));
    events.on('backfillEnded', (e) => {
      this.ended.inc({ factory: e.factory, outcome: e.outcome });
      if (e.outcome === 'filled') this.wait.observe({ factory: e.factory }, e.elapsedMs / 1000);
    });
  }
}
