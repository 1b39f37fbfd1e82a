import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CoordinatorEvents, CoordinatorSnapshot, CoordinatorView, FindOutcome, RequeueCause } from '../coordinator/edges/index.js';
import { BackfillMetrics } from './backfill-metrics.js';
import { TalliedCounter, TalliedHistogram } from './tallies.js';

/**
 * Prometheus metrics: counters and histograms follow the core's events (CoordinatorEvents);
 * gauges are read from CoordinatorView.snapshot() at scrape time, so the hot path pays nothing.
 */
export class CoordinatorMetrics {
  readonly registry = new Registry();
  private coordinator: CoordinatorView | undefined;
  // Counted once per ticket: tallied (tallies.ts), not through prom-client's per-call label hashing.
  private readonly finds: TalliedCounter<'factory' | 'outcome'>;
  private readonly refused: Counter<'code'>;
  private readonly timeToAssignment: TalliedHistogram<'factory'>;
  private readonly placements: TalliedCounter<'factory'>;
  private readonly requeues: Counter<'factory' | 'cause'>;
  private readonly rejections: Counter<'message'>;
  private readonly queueWait: Histogram<'factory'>;
  private readonly backoffs: Counter;
  private readonly limitRefusals: Counter<'limit'>;
  private readonly storeWriteFailures: Counter<'op'>;
  private readonly competitiveGap: Histogram<'factory'>;
  private readonly competitiveFavourite: Histogram<'factory'>;
  private readonly competitiveQuality: Histogram<'factory'>;
  private readonly competitiveWait: Histogram<'factory'>;
  private readonly matchFunctionFallbacks: Counter<'factory' | 'reason'>;
  private readonly readyChecks: Counter<'factory' | 'outcome'>;
  private readonly settleCollections: Histogram;
  private readonly settleReleased: Counter;
  private readonly backfill: BackfillMetrics;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.finds = new TalliedCounter('gamefactory_find_game_total', 'FindGame tickets finished, by factory and outcome', ['factory', 'outcome'], registers);
    this.matchFunctionFallbacks = new Counter({
      name: 'gamefactory_match_function_fallbacks_total',
      help: 'Competitive batches the built-in matcher formed because the factory\'s match function timed out, failed or broke a rule',
      labelNames: ['factory', 'reason'],
      registers,
    });
    this.readyChecks = new Counter({
      name: 'gamefactory_ready_checks_total',
      help: 'Proposed matches settled, by outcome (accepted, declined, timed-out, left)',
      labelNames: ['factory', 'outcome'],
      registers,
    });
    this.refused = new Counter({
      name: 'gamefactory_find_game_refused_total',
      help: 'FindGame requests refused before becoming a ticket, by gRPC status code',
      labelNames: ['code'],
      registers,
    });
    this.timeToAssignment = new TalliedHistogram('gamefactory_time_to_assignment_seconds', 'Time from FindGame to assignment', 'factory', [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300], registers);
    this.placements = new TalliedCounter('gamefactory_placements_total', 'CreateGame orders sent to game servers', ['factory'], registers);
    this.requeues = new Counter({
      name: 'gamefactory_requeues_total',
      help: 'Game creations taken back and re-queued at their original priority, by cause',
      labelNames: ['factory', 'cause'],
      registers,
    });
    this.rejections = new Counter({
      name: 'gamefactory_server_messages_rejected_total',
      help: 'Game server messages rejected (out of order, unknown game...)',
      labelNames: ['message'],
      registers,
    });
    this.queueWait = new Histogram({
      name: 'gamefactory_queue_wait_seconds',
      help: 'Time game creations waited in the queue for a slot',
      labelNames: ['factory'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers,
    });
    this.limitRefusals = new Counter({
      name: 'gamefactory_limit_refusals_total',
      help: 'Calls, messages or streams refused or closed by a limit, by the limit\'s name in factories.yaml limits:',
      labelNames: ['limit'],
      registers,
    });
    this.storeWriteFailures = new Counter({
      name: 'gamefactory_store_write_failures_total',
      help: 'Ticket store (LMDB) writes that failed, by operation: those tickets would not survive a restart',
      labelNames: ['op'],
      registers,
    });
    this.backoffs = new Counter({
      name: 'gamefactory_server_backoffs_total',
      help: 'Times a game server that kept failing creations was backed off (circuit breaker)',
      registers,
    });
    this.competitiveGap = new Histogram({
      name: 'gamefactory_competitive_gap_sigma',
      help: 'Skill gap of competitive games formed, in standard deviations of the score distribution (good: <= 0.2)',
      labelNames: ['factory'],
      buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 1, 2],
      registers,
    });
    this.competitiveFavourite = new Histogram({
      name: 'gamefactory_competitive_favourite_win_probability',
      help: 'Predicted chance the favourite wins each competitive game formed (0.5: a coin toss; TrueSkill model with the factory performanceSd)',
      labelNames: ['factory'],
      buckets: [0.55, 0.6, 0.65, 0.7, 0.8, 0.9],
      registers,
    });
    this.competitiveQuality = new Histogram({
      name: 'gamefactory_competitive_match_quality',
      help: "TrueSkill match quality of each competitive game formed (draw chance relative to the most even game possible; 1: even)",
      labelNames: ['factory'],
      buckets: [0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
      registers,
    });
    this.competitiveWait = new Histogram({
      name: 'gamefactory_competitive_wait_seconds',
      help: 'How long tickets waited before their competitive game formed',
      labelNames: ['factory'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers,
    });
    this.settleCollections = new Histogram({
      name: 'gamefactory_settle_collection_pause_seconds',
      help: 'Full garbage collections run once arrivals settled (start --settle-gc), by their pause; _count is how many ran',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers,
    });
    this.backfill = new BackfillMetrics(registers);
    this.settleReleased = new Counter({
      name: 'gamefactory_settle_collection_released_bytes_total',
      help: 'Old-generation heap those collections gave back (committed before minus after)',
      registers,
    });
    new Gauge({
      name: 'gamefactory_queue_depth',
      help: 'Game creations waiting for a slot, by factory',
      labelNames: ['factory'],
      registers,
      collect: (() => {
        const self = this;
        return function (this: Gauge<'factory'>) {
          this.reset();
          const c = self.coordinator;
          if (c) for (const factory of c.factoryNames()) this.set({ factory }, c.queuedIn(factory));
        };
      })(),
    });
    const gauge = (name: string, help: string, read: (s: CoordinatorSnapshot) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect: (() => {
          const self = this;
          return function (this: Gauge) {
            if (self.coordinator) this.set(read(self.coordinator.snapshot()));
          };
        })(),
      });
    gauge('gamefactory_connected_servers', 'Game servers connected', (s) => s.servers);
    gauge('gamefactory_live_factories', 'Factories instantiated', (s) => s.factories);
    gauge('gamefactory_running_games', 'Games running on connected servers', (s) => s.games);
    gauge('gamefactory_open_games', 'Cooperative games open for matching', (s) => s.openGames);
    new Gauge({
      name: 'gamefactory_free_slots',
      help: 'Free game slots advertised by servers',
      registers,
      collect: (() => {
        const self = this;
        return function (this: Gauge) {
          if (self.coordinator) this.set(self.coordinator.freeSlots());
        };
      })(),
    });
    gauge('gamefactory_queued_creations', 'Game creations waiting for a slot', (s) => s.queued);
    gauge('gamefactory_tickets', 'Tickets held (waiting, or assigned and kept for retries)', (s) => s.tickets);
  }

  /** Reads gauges from `view` and counts what `events` report. */
  attach(view: CoordinatorView, events: CoordinatorEvents): void {
    this.coordinator = view;
    events.on('findFinished', (e) => this.findFinished(e.factory, e.outcome, e.elapsedMs));
    events.on('placed', (e) => this.placed(e.factory));
    events.on('requeued', (e) => this.requeued(e.factory, e.cause));
    events.on('serverMessageRejected', (e) => this.serverMessageRejected(e.kind));
    events.on('dequeued', (e) => this.dequeued(e.factory, e.waitedMs));
    events.on('competitiveGameFormed', (e) => {
      this.competitiveGameFormed(e.factory, e.gapInSigma, e.waitsMs);
      this.competitiveBalance(e.factory, e.favouriteWinProbability, e.matchQuality);
    });
    events.on('serverBackedOff', () => this.serverBackedOff());
    this.backfill.attach(view, events);
    events.on('matchFunctionFallback', (e) => this.matchFunctionFallbacks.inc({ factory: e.factory, reason: e.reason }));
    events.on('matchSettled', (e) => this.readyChecks.inc({ factory: e.factory, outcome: e.outcome }));
  }

  findFinished(factory: string, outcome: FindOutcome, elapsedMs: number): void {
    this.finds.inc(factory, outcome);
    if (outcome === 'assigned') this.timeToAssignment.observe(factory, elapsedMs / 1000);
  }

  findRefused(code: number): void {
    this.refused.inc({ code: String(code) });
  }

  placed(factory: string): void {
    this.placements.inc(factory);
  }

  requeued(factory: string, cause: RequeueCause): void {
    this.requeues.inc({ factory, cause });
  }

  serverMessageRejected(message: string): void {
    this.rejections.inc({ message });
  }

  dequeued(factory: string, waitedMs: number): void {
    this.queueWait.observe({ factory }, waitedMs / 1000);
  }

  competitiveGameFormed(factory: string, gapInSigma: number, waitsMs: readonly number[]): void {
    if (Number.isFinite(gapInSigma)) this.competitiveGap.observe({ factory }, gapInSigma);
    for (const ms of waitsMs) this.competitiveWait.observe({ factory }, ms / 1000);
  }

  /** A game's predicted balance: the favourite's chance to win and TrueSkill's match quality. */
  competitiveBalance(factory: string, favouriteWinProbability: number, matchQuality: number): void {
    if (Number.isFinite(favouriteWinProbability)) this.competitiveFavourite.observe({ factory }, favouriteWinProbability);
    if (Number.isFinite(matchQuality)) this.competitiveQuality.observe({ factory }, matchQuality);
  }

  serverBackedOff(): void {
    this.backoffs.inc();
  }

  /** A ticket store write failed (`op`: save or remove). */
  storeWriteFailed(op: string): void {
    this.storeWriteFailures.inc({ op });
  }

  /** A full collection ran once arrivals settled (src/app/settle-collector.ts). */
  settleCollected(pauseMs: number, releasedBytes: number): void {
    this.settleCollections.observe(pauseMs / 1000);
    this.settleReleased.inc(Math.max(0, releasedBytes));
  }

  /** A limit refused a call or message, or closed an idle stream. */
  limitHit(limit: string): void {
    this.limitRefusals.inc({ limit });
  }
}

/**
 * Serves GET /metrics on `host:port` (port 0: any free port); `routes` may answer other requests
 * first (the operator page) by returning true.
 */
export async function startMetricsServer(
  host: string,
  port: number,
  registry: Registry,
  routes?: (req: IncomingMessage, res: ServerResponse) => boolean,
  /** Makes the server (an HTTPS one when the coordinator has TLS); plain HTTP when absent. */
  makeServer: (listener: RequestListener) => Server = createServer,
): Promise<{ server: Server; port: number }> {
  const server = makeServer((req, res) => {
    if (routes?.(req, res)) return;
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('gamefactory: metrics are at /metrics, the operator page at /\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
