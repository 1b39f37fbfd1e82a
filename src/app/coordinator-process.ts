import { hostname } from 'node:os';
import { randomId } from './random-ids.js';
import { defaultAdvertiseAddress } from '../cluster/routing/advertise-address.js';
import type { CoordinatorConfig } from '../config/config.js';
import { SliceWorkerPool } from '../competitive/index.js';
import { forwardingCommands, type CoordinatorCommands } from '../coordinator/edges/commands.js';
import { EventHub } from '../coordinator/edges/events.js';
import type { CoordinatorView } from '../coordinator/edges/view.js';
import { realTimers, type Log } from '../coordinator/ports.js';
import { CoordinatorMetrics, startMetricsServer } from '../metrics/coordinator-metrics.js';
import { CoordinatorOperatorSource, startOperatorPage } from '../operator-page/index.js';
import { ladderStanding, ratedLadders } from '../coordinator/results/game-results.js';
import { ratingsView } from '../ratings/ratings-view.js';
import { DEFAULT_PROBE_MS, LmdbStore } from '../storage/lmdb-store.js';
import { storeGateInterceptor, storeRefusal } from '../transport/grpc/interceptors/store-gate.js';
import { checkDataDirectory } from '../storage/data-directory/check-data-directory.js';
import type { RatingStore } from '../ratings/rating-store.js';
import { openSharedRatings } from '../redis/ratings/index.js';
import { startRedisNode } from '../redis/relay/redis-node.js';
import { startShardedNode } from '../redis/shards/sharded-node.js';
import { startGrpcServer, type ReloadAnswer } from '../transport/grpc/grpc-server.js';
import type { CallGate, CallRecord } from '../transport/grpc/interceptors/index.js';
import { AdminService } from '../generated/gamefactory/v1/admin.js';
import { adminOnlyRoutes } from '../security/http/admin-routes.js';
import { httpsServerFollowing } from '../security/http/https-server.js';
import { grpcSecurity, SecuritySetupError, type GrpcSecurity } from '../security/from-config.js';
import { TOKENS_WITHOUT_TLS } from '../security/dev-mode.js';
import type { TokenVerifier } from '../security/tokens/token-verifier.js';
import { ArrivalRecorder } from '../replay/arrival-recorder.js';
import { planReload } from '../config/reload-plan.js';
import { buildCore, coreEnvironment, type CoreEnvironment } from './build-core.js';
import { ConfigReloader, type ReloadResult } from './config-reloader.js';
import type { ReloadOutcome } from '../coordinator/config-reload.js';
import type { CoreHost } from './core-host.js';
import type { SettleCollectionSettings } from './settle-collection-policy.js';
import { startSettleCollector } from './settle-collector.js';
import type { TraceExport } from '../tracing/trace-export.js';
import { FindTraces } from '../tracing/find-traces.js';

export interface ProcessOptions {
  readonly config: CoordinatorConfig;
  /** host:port; port 0 picks a free port. */
  readonly listen: string;
  readonly metricsListen: string;
  /** --http-listen host:port: the Matchmaker and Ratings also over Connect, gRPC-Web and JSON; off when absent. */
  readonly httpListen?: string;
  readonly dataDir: string;
  readonly log: Log;
  /** Checks on every gRPC call before its handler: authentication, roles, rate limits. */
  readonly gates?: readonly CallGate[];
  readonly onCallEnded?: (record: CallRecord) => void;
  /**
   * Issue 14: authentication, roles and per-peer limits on every call, TLS from config.security.
   * `insecure` (development mode) or absent (tests embedding the process): no security
   * interceptor, unless security.tls is configured.
   */
  readonly security?: { readonly insecure: boolean; readonly tokens?: TokenVerifier };
  /** Longest a drain waits for calls in flight before closing every connection. */
  readonly drainGraceMs?: number;
  /** An admin's Drain call has drained the process: the CLI exits. */
  readonly onDrained?: () => void;
  /** `--redis`: join the cluster sharing this Redis (src/redis/relay); absent, one process on LMDB. */
  readonly redis?: string;
  /** With `redis`: shards of factories owned across the nodes (default), or one matcher owner the others relay to. */
  readonly clusterMode?: 'relay' | 'sharded';
  /**
   * With `redis`: the host:port clients reach this node at, named in other nodes' route hints
   * (checked by `parseAdvertiseAddress`). Default: the bound gRPC address, or this machine's
   * hostname with the bound port when it listens on every interface.
   */
  readonly advertiseAddress?: string;
  /** `--record`: write the competitive tickets taken in to this file, for `gamefactory replay`. */
  readonly record?: string;
  /** The file `config` was read from: SIGHUP and Admin.ReloadConfig read it again. No reload without it. */
  readonly configPath?: string;
  /**
   * One full garbage collection once a burst of arrivals has settled (settle-collection-policy.ts),
   * so an idle node's RSS falls back near its live heap. `gamefactory start` turns it on unless
   * `--settle-gc off`; absent (tests embedding the process), off.
   */
  readonly settleCollection?: SettleCollectionSettings;
  /**
   * OpenTelemetry traces of finds (src/tracing): made only when given (`--otlp-endpoint`, OTEL_*);
   * `shutdown` is awaited last when the process stops, so the spans buffered are sent.
   */
  readonly traces?: Pick<TraceExport, 'tracer'> & Partial<Pick<TraceExport, 'shutdown'>>;
}

/** How long past a ticket's time to live a trace waits for the core's word on it. */
const TRACE_MARGIN_MS = 60_000;

/** Default grace period of a drain (SIGTERM, Admin.Drain). */
export const DEFAULT_DRAIN_GRACE_MS = 10_000;

export interface RunningCoordinator {
  /** What the transport calls, and the view it reads: the core itself, or a cluster node's relay. */
  readonly coordinator: CoordinatorCommands & { readonly view: CoordinatorView };
  /** What every core of this process is built with (ratings, workers, the event hub of metrics and the operator page). */
  readonly environment: CoreEnvironment;
  /** The core this process runs now: always when embedded; in a cluster, while this node owns the matcher. */
  currentCore(): CoreHost | undefined;
  readonly grpcPort: number;
  readonly metricsPort: number;
  /** The HTTP gateway's port, with --http-listen. */
  readonly httpPort?: number;
  readonly metrics: CoordinatorMetrics;
  /** Reads the configuration file again and applies it whole or refuses it whole (SIGHUP); undefined without a configPath. */
  reloadConfig(trigger: string): ReloadResult | undefined;
  /** Graceful drain: refuse new calls, store waiting tickets, end streams UNAVAILABLE, close. */
  drain(reason: string): Promise<void>;
  stop(): Promise<void>;
}

export function splitHostPort(field: string, value: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 0 && port <= 65535)) throw new Error(`${field}: "${value}" is not host:port`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** The composition root: the pure coordinator wired to real time, gRPC, LMDB and Prometheus. */
export async function startCoordinatorProcess(options: ProcessOptions): Promise<RunningCoordinator> {
  // Checked before anything opens (the data directory, ports): an embedder gets the CLI's refusal.
  if (options.config.security?.tokens && !options.config.security.tls) throw new SecuritySetupError(TOKENS_WITHOUT_TLS);
  const listen = splitHostPort('listen', options.listen);
  const metricsListen = splitHostPort('metrics-listen', options.metricsListen);
  const httpListen = options.httpListen === undefined ? undefined : splitHostPort('http-listen', options.httpListen);
  const metrics = new CoordinatorMetrics();
  // A damaged environment would crash LMDB (SIGSEGV/SIGBUS) or lose records silently: refused with one line.
  await checkDataDirectory(options.dataDir);
  // A failed write loses only that ticket's restart recovery: counted, and logged at warn while the
  // store is healthy; a full disk is one error when writes start failing and one line when they resume.
  const store = LmdbStore.open(options.dataDir, {
    onWriteFailed: (op, error, ticketId) => {
      metrics.storeWriteFailed(op);
      if (!store?.health.failing()) options.log.warn({ op, ticketId, error: error.message }, 'ticket store write failed');
    },
    onHealthChange: (failing) =>
      failing
        ? options.log.warn({ data: options.dataDir, error: failing.message }, 'ticket store cannot write (disk full?): new tickets refused with UNAVAILABLE until it can')
        : options.log.info({ data: options.dataDir }, 'ticket store writes again: new tickets accepted'),
  });
  const starts = await store.recordStart(Date.now());
  const now = () => Date.now();
  // Ratings live beside the tickets; each ladder's board is rebuilt in memory here. In a cluster
  // they live in the shared Redis, so a result reported through one node is seen on every node.
  const ladders = options.config.ladders ?? new Map();
  const standingOf = ladderStanding(ratedLadders(ladders));
  const shared = options.redis ? await openSharedRatings(options.redis, { ladders: [...ladders.keys()], standing: standingOf, log: options.log }) : undefined;
  const local = shared ? undefined : store.openRatings(standingOf);
  const ratings: RatingStore = shared?.store ?? local!;
  // One pool of worker threads per process for large competitive batches; idle workers do not keep it alive.
  const workers = options.config.templates.some((t) => t.strategy.kind === 'competitive') ? new SliceWorkerPool() : undefined;
  const environment = coreEnvironment(options.config, {
    now,
    timers: realTimers,
    log: options.log,
    newId: randomId,
    random: Math.random,
    ratings,
    workers,
    events: new EventHub(options.log),
  });
  // A reload goes to the core running here; a cluster node that does not hold the matcher keeps
  // the new config for the next core it builds (each node reloads its own file).
  const reloader: ConfigReloader | undefined =
    options.configPath === undefined
      ? undefined
      : new ConfigReloader({
          path: options.configPath,
          config: options.config,
          log: options.log,
          registry: metrics.registry,
          apply: (next): ReloadOutcome => {
            const core = node?.reload ? undefined : currentCore();
            if (core) return core.reload(next);
            // No core here yet (what can never change live is refused all the same), or a sharded
            // node, whose cores (one per shard it owns) each take the file, or none does.
            const plan = planReload(reloader!.config, next, []);
            if (!plan.ok) return { refused: plan.problems };
            const outcome = node?.reload?.(next);
            return outcome && ('refused' in outcome || outcome.changes.length > 0) ? outcome : { changes: plan.changes };
          },
        });
  const runningConfig = (): CoordinatorConfig => reloader?.config ?? options.config;
  // Embedded, the core runs here on LMDB; in a cluster, the node builds one (with the same
  // environment) whenever it takes the matcher, and metrics follow whichever core runs.
  const restored = options.redis ? [] : store.tickets.loadAll();
  const restoredBackfills = options.redis ? [] : store.backfills.loadAll();
  const host = options.redis ? undefined : buildCore(options.config, environment, { store: store.tickets, restored, backfills: store.backfills, restoredBackfills });
  // Known once the gRPC port is bound (below); the node publishes it from its next beat on.
  let advertised: string | undefined;
  const node = options.redis
    ? await (options.clusterMode === 'relay' ? startRedisNode : startShardedNode)({
        url: options.redis,
        config: options.config,
        log: options.log,
        build: (place) => buildCore(runningConfig(), environment, place),
        advertise: () => advertised,
      })
    : undefined;
  const currentCore = (): CoreHost | undefined => host ?? node?.core();
  // Recording sits in front of the core like the transport: it sees what the core accepted.
  const recorder = options.record === undefined ? undefined : new ArrivalRecorder(options.record, runningConfig, now);
  recorder?.attach(environment.events);
  const recorded: CoordinatorCommands = recorder ? recorder.wrap(host ?? node!.commands) : (host ?? node!.commands);
  const settle =
    options.settleCollection &&
    startSettleCollector(options.settleCollection, options.log, (c) => metrics.settleCollected(c.pauseMs, c.before.committedBytes - c.after.committedBytes));
  const commands: CoordinatorCommands = settle ? settle.counting(recorded) : recorded;
  const view: CoordinatorView = host?.view ?? node!.view;
  metrics.attach(view, environment.events);
  // Spans of finds, from the same events, keyed by ticket id: none of it exists unless traced.
  const findTraces = options.traces && new FindTraces({ tracer: options.traces.tracer, view, maxAgeMs: options.config.placement.ticketTtlMs + TRACE_MARGIN_MS });
  findTraces?.attach(environment.events);
  // The operator page reads the same view and events as the metrics.
  const operatorSource = new CoordinatorOperatorSource(view, environment.events);
  // A cluster node's page adds every node's factories; its QueryStats answers for the whole cluster.
  const operatorPage = startOperatorPage(operatorSource, now, node?.stats && (() => node.stats!.overview()));
  const security: GrpcSecurity | undefined =
    // Development mode (--insecure, loopback) has no roles and no per-peer limits: the examples and
    // the load generator all come from one address. Message size is enforced either way.
    (options.security && !options.security.insecure) || options.config.security?.tls
      ? await grpcSecurity({
          settings: options.config.security,
          limits: options.config.limits,
          insecure: options.security?.insecure ?? false,
          tokens: options.security?.tokens,
          onLimit: (e) => metrics.limitHit(e.limit),
          now,
          drainPath: AdminService.drain.path,
        })
      : undefined;
  const graceMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  let stopping: Promise<void> | undefined;
  const shutDown = (reason: string, drain: boolean): Promise<void> =>
    (stopping ??= (async () => {
      if (drain) {
        grpc.refuseNewCalls();
        // Stored first, so the streams ended next are not clients giving their tickets up.
        commands.beginShutdown();
        const streams = grpc.endStreams();
        options.log.info({ reason, streams, graceMs }, 'draining: new calls refused, waiting tickets stored, streams ended');
      } else commands.beginShutdown();
      settle?.stop();
      operatorPage.stop();
      security?.stop();
      https?.stop();
      gatewayTls?.stop();
      await grpc.shutdown(drain ? graceMs : undefined);
      await node?.stop();
      const closed = new Promise<void>((resolve) => http.server.close(() => resolve()));
      http.server.closeIdleConnections(); // the operator page's keep-alive polls
      await closed;
      await recorder?.close();
      await store.tickets.flushed();
      await local?.flushed();
      await shared?.close();
      await store.close();
      await workers?.close();
      findTraces?.close();
      await options.traces?.shutdown?.();
      environment.matchFunctions.close();
    })());

  // With TLS the HTTP ports are HTTPS too (same certificate): tokens are never sent in plaintext.
  const https = options.config.security?.tls ? httpsServerFollowing(options.config.security.tls) : undefined;
  const gatewayTls = options.config.security?.tls ? httpsServerFollowing(options.config.security.tls) : undefined;
  const grpc = await startGrpcServer(`${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`, {
    commands,
    view,
    ...(node?.stats && { clusterStats: (query, at) => node.stats!.query(query, at) }),
    ratings: ratingsView(ladders, ratings),
    keepaliveIntervalMs: options.config.servers.keepaliveIntervalMs,
    settings: options.config.grpc,
    now,
    log: options.log,
    onServerMessageRejected: (kind) => metrics.serverMessageRejected(kind),
    onFindRefused: (code) => metrics.findRefused(code),
    gates: options.gates,
    onCallEnded: options.onCallEnded,
    credentials: security?.credentials,
    maxMessageBytes: options.config.limits?.maxMessageBytes,
    maxUnreadBytesPerStream: options.config.limits?.maxUnreadBytesPerStream,
    onLimit: (limit) => metrics.limitHit(limit),
    // Embedded, tickets live in LMDB: while it cannot write, new ones are refused (the gate sits after authentication).
    extra: [...(security ? [security.interceptor] : []), ...(host ? [storeGate(store, host.view, options.dataDir, metrics)] : [])],
    // ...and asked again when a find's turn comes: the store may have failed while it waited.
    ...(host && { refuseNewTicket: storeRefusal(storeGateOptions(store, host.view, options.dataDir)) }),
    ...(reloader && { onReloadRequested: () => reloadAnswer(reloader.reload('Admin.ReloadConfig')) }),
    ...(findTraces && { findTracing: findTraces }),
    ...(httpListen && {
      http: { host: httpListen.host, port: httpListen.port, corsOrigins: options.config.http?.corsOrigins ?? [], ...(gatewayTls && { createServer: gatewayTls.make }) },
    }),
    onDrainRequested: (reason) => {
      // Answered first; the drain starts once the answer is on its way.
      setImmediate(() => void shutDown(`Admin.Drain: ${reason || 'no reason given'}`, true).then(() => options.onDrained?.()));
      return { graceMs };
    },
  });
  // With credentials, the operator page is for admins (it shows every factory and server); /metrics stays as configured.
  const routes = security ? adminOnlyRoutes(operatorPage.routes, security.tokens) : operatorPage.routes;
  const http = await startMetricsServer(metricsListen.host, metricsListen.port, metrics.registry, routes, https?.make);
  node?.onHealth((serving) => grpc.health.setStatus('', serving ? 'SERVING' : 'NOT_SERVING'));
  if (node) advertised = options.advertiseAddress ?? defaultAdvertiseAddress(listen.host, grpc.port, hostname());
  options.log.info(
    { grpc: `${listen.host}:${grpc.port}`, ...(httpListen && { http: `${httpListen.host}:${grpc.httpPort}` }), metrics: `${metricsListen.host}:${http.port}`, data: options.dataDir, starts, restoredTickets: restored.length, restoredBackfills: restoredBackfills.length, node: node?.nodeId, advertise: advertised, settleCollection: settle !== undefined },
    'gamefactory coordinator listening',
  );

  return {
    coordinator: withView(commands, view),
    environment,
    currentCore,
    grpcPort: grpc.port,
    metricsPort: http.port,
    ...(grpc.httpPort !== undefined && { httpPort: grpc.httpPort }),
    metrics,
    reloadConfig: (trigger) => reloader?.reload(trigger),
    drain: (reason) => shutDown(reason, true),
    stop: () => shutDown('stop', false),
  };
}

/** A reload's outcome as the Admin caller gets it: a file that does not validate is INVALID_ARGUMENT, one that cannot apply live FAILED_PRECONDITION. */
function reloadAnswer(result: ReloadResult): ReloadAnswer {
  switch (result.outcome) {
    case 'invalid':
      return { refused: 'INVALID_ARGUMENT', details: result.error };
    case 'refused':
      return {
        refused: 'FAILED_PRECONDITION',
        details: `${result.path}: cannot apply while running; the running configuration is unchanged:\n${result.problems.map((p) => `  ${p}`).join('\n')}`,
      };
    default:
      return { path: result.path, changes: result.changes };
  }
}

function storeGateOptions(store: LmdbStore, view: CoordinatorView, dataDir: string) {
  return {
    failing: () => store.health.failing(),
    known: (ticketId: string) => view.ticket(ticketId) !== undefined,
    storeName: `the ticket store (LMDB in ${dataDir})`,
    retryAfterMs: DEFAULT_PROBE_MS,
  };
}

function storeGate(store: LmdbStore, view: CoordinatorView, dataDir: string, metrics: CoordinatorMetrics) {
  return storeGateInterceptor({ ...storeGateOptions(store, view, dataDir), onRefused: () => metrics.findRefused(14) });
}

/** The transport's commands and the view it reads, as one handle for tests and tools. */
function withView(commands: CoordinatorCommands, view: CoordinatorView): CoordinatorCommands & { readonly view: CoordinatorView } {
  return { view, ...forwardingCommands(commands) };
}
