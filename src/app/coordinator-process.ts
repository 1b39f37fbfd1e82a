import { randomUUID } from 'node:crypto';
import type { CoordinatorConfig } from '../config/config.js';
import { SliceWorkerPool } from '../competitive/index.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { realTimers, type Log } from '../coordinator/ports.js';
import { CoordinatorMetrics, startMetricsServer } from '../metrics/coordinator-metrics.js';
import { CoordinatorOperatorSource, startOperatorPage } from '../operator-page/index.js';
import { InProcessPlacement } from '../placement/index.js';
import { LmdbStore } from '../storage/lmdb-store.js';
import { startRedisNode } from '../redis/relay/redis-node.js';
import { startGrpcServer } from '../transport/grpc/grpc-server.js';
import type { CallGate, CallRecord } from '../transport/grpc/interceptors/index.js';

export interface ProcessOptions {
  readonly config: CoordinatorConfig;
  /** host:port; port 0 picks a free port. */
  readonly listen: string;
  readonly metricsListen: string;
  readonly dataDir: string;
  readonly log: Log;
  /** Checks on every gRPC call before its handler: authentication, roles, rate limits. */
  readonly gates?: readonly CallGate[];
  readonly onCallEnded?: (record: CallRecord) => void;
  /** `--redis`: join the cluster sharing this Redis (src/redis/relay); absent, one process on LMDB. */
  readonly redis?: string;
}

export interface RunningCoordinator {
  readonly coordinator: Coordinator;
  readonly grpcPort: number;
  readonly metricsPort: number;
  readonly metrics: CoordinatorMetrics;
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
  const listen = splitHostPort('listen', options.listen);
  const metricsListen = splitHostPort('metrics-listen', options.metricsListen);
  // A failed write loses only that ticket's restart recovery; metrics can count it here too (issue 10).
  const store = LmdbStore.open(options.dataDir, {
    onWriteFailed: (op, error, ticketId) => options.log.warn({ op, ticketId, error: error.message }, 'ticket store write failed'),
  });
  const starts = await store.recordStart(Date.now());
  const metrics = new CoordinatorMetrics();
  const now = () => Date.now();
  const restored = store.tickets.loadAll();
  const placement = new InProcessPlacement(options.config.placement.policy, now);
  // One pool of worker threads per process for large competitive batches; idle workers do not keep it alive.
  const sliceSolver = options.config.templates.some((t) => t.strategy.kind === 'competitive') ? new SliceWorkerPool() : undefined;
  const coordinator = new Coordinator(
    options.config,
    { now, timers: realTimers, newId: randomUUID, random: Math.random, log: options.log, store: store.tickets, sliceSolver },
    placement,
    restored,
  );
  metrics.attach(coordinator.view, coordinator.events, placement);
  // The operator page (issue 16) reads the same view and events as the metrics.
  const operatorSource = new CoordinatorOperatorSource(coordinator.view, coordinator.events);
  const operatorPage = startOperatorPage(operatorSource, now);

  const node = options.redis ? await startRedisNode({ url: options.redis, config: options.config, log: options.log, idleView: coordinator.view }) : undefined;
  const grpc = await startGrpcServer(`${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`, {
    commands: node?.commands ?? coordinator,
    view: node?.view ?? coordinator.view,
    keepaliveIntervalMs: options.config.servers.keepaliveIntervalMs,
    settings: options.config.grpc,
    now,
    log: options.log,
    onServerMessageRejected: (kind) => metrics.serverMessageRejected(kind),
    onFindRefused: (code) => metrics.findRefused(code),
    gates: options.gates,
    onCallEnded: options.onCallEnded,
  });
  node?.onHealth((serving) => grpc.health.setStatus('', serving ? 'SERVING' : 'NOT_SERVING'));
  const http = await startMetricsServer(metricsListen.host, metricsListen.port, metrics.registry, operatorPage.routes);
  options.log.info(
    { grpc: `${listen.host}:${grpc.port}`, metrics: `${metricsListen.host}:${http.port}`, data: options.dataDir, starts, restoredTickets: restored.length, node: node?.nodeId },
    'gamefactory coordinator listening',
  );

  return {
    coordinator,
    grpcPort: grpc.port,
    metricsPort: http.port,
    metrics,
    async stop() {
      coordinator.beginShutdown();
      operatorPage.stop();
      await grpc.shutdown();
      await node?.stop();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      await store.tickets.flushed();
      await store.close();
      await sliceSolver?.close();
    },
  };
}
