#!/usr/bin/env node
import { Command, Option } from 'commander';
import type { RunningCoordinator } from '../app/coordinator-process.js';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { decideBind } from '../security/dev-mode.js';
import { parseAdvertiseAddress } from '../cluster/routing/advertise-address.js';
import { createLogger } from './logger.js';
import { listenProblem } from './listen-errors.js';
import { metricsAddress } from './metrics-address.js';
import { registerCheckCommand } from './check-command.js';
import { registerClientCommands } from './client-commands.js';
import { registerReplayCommand } from './replay-command.js';
import { registerSimulateCommand } from './simulate-command.js';
import { registerSimulateClusterCommand } from './simulate-cluster-command.js';
import { releaseEarlySignals } from './early-signals.js';
import { traceSettings, TraceSettingsError, type TraceSettings } from '../tracing/trace-settings.js';

// Loaded: from here each command handles the signals (start below; the others by default).
releaseEarlySignals();

/**
 * How long a stop may take beyond the drain's grace period before the process exits anyway: a
 * cluster node lets go of Redis within a lease (2 s; past it its leases have lapsed and a release
 * gains nothing), then the data directory is flushed and closed. Also how long a start may go on
 * after a signal came while starting.
 */
const STOP_AFTER_GRACE_MS = 5_000;

const program = new Command()
  .name('gamefactory')
  .description('Game-agnostic matchmaking coordinator in the style of Battle.net game factories');

program
  .command('start', { isDefault: true })
  .description('run the coordinator')
  .addOption(new Option('--listen <host:port>', 'gRPC address (port 0: any free port)').env('GAMEFACTORY_LISTEN').default('0.0.0.0:50051'))
  .addOption(
    new Option('--metrics-listen <host:port>', '/metrics and operator page address, or a port alone on the --listen host (default: the --listen host, port 9464; port 0: any free port)')
      .env('GAMEFACTORY_METRICS_LISTEN'),
  )
  .addOption(
    new Option('--http-listen <host:port>', 'also serve the Matchmaker and Ratings over HTTP/1.1 for browsers and HTTP clients (Connect, gRPC-Web, JSON) at this address (port 0: any free port); off unless given')
      .env('GAMEFACTORY_HTTP_LISTEN'),
  )
  .addOption(new Option('--config <path>', 'factory templates').env('GAMEFACTORY_CONFIG').default('factories.yaml'))
  .addOption(new Option('--data <dir>', 'LMDB data directory').env('GAMEFACTORY_DATA').default('data'))
  .addOption(new Option('--redis <url>', 'join a cluster of nodes sharing this Redis: redis://host:port or redis-cluster://host:port,...').env('GAMEFACTORY_REDIS'))
  .addOption(
    new Option('--cluster-mode <mode>', 'with --redis: sharded (every node owns its share of the shards of factories) or relay (one node runs every matcher, the others relay to it)')
      .env('GAMEFACTORY_CLUSTER_MODE')
      .choices(['sharded', 'relay'])
      .default('sharded'),
  )
  .addOption(
    new Option('--advertise-address <host:port>', 'with --redis: the address clients reach this node at, named in the route hints other nodes give for the factories this node owns (default: the bound --listen address, or this machine\'s hostname with the bound port when --listen is 0.0.0.0 or ::)')
      .env('GAMEFACTORY_ADVERTISE_ADDRESS'),
  )
  .addOption(
    new Option('--log-format <format>', 'json, or pretty for people').env('GAMEFACTORY_LOG_FORMAT').choices(['json', 'pretty']).default('json'),
  )
  .addOption(new Option('--log-level <level>', 'pino log level').env('GAMEFACTORY_LOG_LEVEL').default('info'))
  .addOption(new Option('--insecure', 'development mode: plaintext, every caller trusted (loopback only)').env('GAMEFACTORY_INSECURE').default(false))
  .addOption(
    new Option('--allow-insecure-bind', 'allow development mode on a non-loopback address').env('GAMEFACTORY_ALLOW_INSECURE_BIND').default(false),
  )
  .addOption(
    new Option('--drain-grace-ms <ms>', 'on SIGTERM or Admin.Drain, how long calls in flight may finish before the process exits')
      .env('GAMEFACTORY_DRAIN_GRACE_MS')
      .default('10000'),
  )
  .addOption(
    new Option('--record <file>', "write the competitive tickets taken in to this file (JSON lines, hashed ids) for `gamefactory replay`; off by default").env(
      'GAMEFACTORY_RECORD',
    ),
  )
  .addOption(
    new Option('--settle-gc <mode>', 'on: one compacting garbage collection once arrivals have been quiet for 1.5 s and the heap grew past what the last one left, so an idle node gives a burst\'s garbage back (a pause of ~2-4 ms per thousand tickets held, at most every 30 s and 2% of the time, and none likely longer than --settle-gc-max-pause-ms); off: leave it to V8; auto: on for one process, off for a cluster node (--redis), whose shard leases a pause must not outlast')
      .env('GAMEFACTORY_SETTLE_GC')
      .choices(['on', 'off', 'auto'])
      .default('auto'),
  )
  .addOption(
    new Option('--settle-gc-growth-mb <mb>', 'with --settle-gc on: the least heap growth since the last mark-compact worth a collection')
      .env('GAMEFACTORY_SETTLE_GC_GROWTH_MB')
      .default('32'),
  )
  .addOption(
    new Option('--settle-gc-growth-share <fraction>', 'with --settle-gc on: ...and the least growth as a share of the heap that mark-compact left (a collection marks and moves the whole live heap)')
      .env('GAMEFACTORY_SETTLE_GC_GROWTH_SHARE')
      .default('0.25'),
  )
  .addOption(
    new Option('--settle-gc-max-pause-ms <ms>', 'with --settle-gc on: no collection likely to pause longer (estimated from the heap, then from the last one\'s rate); the default leaves a node holding more than ~150k waiting tickets to V8 (a cluster node\'s shard leases last 2 s)')
      .env('GAMEFACTORY_SETTLE_GC_MAX_PAUSE_MS')
      .default('500'),
  )
  .addOption(
    new Option('--otlp-endpoint <url>', 'export OpenTelemetry traces of finds over OTLP/HTTP to this collector, e.g. http://otel-collector:4318 (also on with OTEL_TRACES_EXPORTER=otlp or OTEL_EXPORTER_OTLP_ENDPOINT; off by default)'),
  )
  .action(async (opts: { otlpEndpoint?: string; listen: string; metricsListen?: string; httpListen?: string; config: string; data: string; redis?: string; clusterMode: 'relay' | 'sharded'; advertiseAddress?: string; logFormat: 'json' | 'pretty'; logLevel: string; insecure: boolean; allowInsecureBind: boolean; drainGraceMs: string; record?: string; settleGc: 'on' | 'off' | 'auto'; settleGcGrowthMb: string; settleGcGrowthShare: string; settleGcMaxPauseMs: string }) => {
    const log = createLogger(opts.logFormat, opts.logLevel);
    // The first SIGTERM drains (new calls refused, tickets stored, streams ended with a retry hint)
    // within the grace period, so clients lose no place, and a cluster node lets go of Redis; a
    // second one exits at once, for an operator who will not wait. Handled from here on, not once started: the default action would end a starting
    // node by the signal, its shard leases held until they lapse, and the "listening" line is
    // written before the start returns, so a supervisor answering it with SIGTERM landed there.
    let running: RunningCoordinator | undefined;
    let opening = false;
    let stopWhenStarted: string | undefined;
    let graceMs = 0;
    let signals = 0;
    const exitBy = (ms: number, message: string) => {
      const hard = setTimeout(() => {
        log.warn({ waitedMs: ms }, message);
        process.exit(1);
      }, ms);
      hard.unref();
    };
    const onSignal = (signal: string) => {
      signals += 1;
      if (signals > 1) {
        log.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      if (running) {
        log.info({ signal, graceMs }, 'draining');
        exitBy(graceMs + STOP_AFTER_GRACE_MS, 'shutdown did not finish within the grace period and its margin: exiting');
        void running.drain(signal).then(() => process.exit(0));
      } else if (opening) {
        // Nothing served yet, nothing to drain: the start finishes (one stuck on a Redis that does
        // not answer is cut short) and the stop follows at once, releasing what the start took.
        log.info({ signal, waitMs: STOP_AFTER_GRACE_MS }, 'signal while starting: stopping once started');
        stopWhenStarted = signal;
        exitBy(STOP_AFTER_GRACE_MS, 'not started and stopped in time after a signal while starting: exiting');
      } else {
        log.info({ signal }, 'signal before starting: exiting');
        process.exit(0);
      }
    };
    process.on('SIGINT', () => onSignal('SIGINT'));
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    // Loaded by `start` alone: the whole coordinator (gRPC, LMDB, Redis, metrics) is most of a
    // second and ~60 MB that find, check and loadgen do not need.
    const { splitHostPort, startCoordinatorProcess } = await import('../app/coordinator-process.js');
    const { DEFAULT_SETTLE_COLLECTION } = await import('../app/settle-collection-policy.js');
    let config;
    try {
      config = loadConfigFile(opts.config);
    } catch (error) {
      if (error instanceof ConfigError) {
        log.error({}, error.message);
        process.exitCode = 2;
        return;
      }
      throw error;
    }
    // Plaintext only on loopback unless forced; tokens only with TLS.
    const bind = decideBind({ host: splitHostPort('listen', opts.listen).host, tls: config.security?.tls !== undefined, tokens: config.security?.tokens !== undefined, insecure: opts.insecure, allowInsecureBind: opts.allowInsecureBind });
    // The HTTP port carries the same calls: it may be plaintext where the gRPC port may.
    const httpBind = opts.httpListen === undefined ? bind : decideBind({ host: splitHostPort('http-listen', opts.httpListen).host, tls: config.security?.tls !== undefined, tokens: config.security?.tokens !== undefined, insecure: opts.insecure, allowInsecureBind: opts.allowInsecureBind });
    if (httpBind.kind === 'refuse') {
      log.error({}, `--http-listen: ${httpBind.reason}`);
      process.exitCode = 2;
      return;
    }
    if (bind.kind === 'refuse') {
      log.error({}, bind.reason);
      process.exitCode = 2;
      return;
    }
    if (bind.kind === 'insecure') log.warn({}, bind.warning);
    graceMs = Number(opts.drainGraceMs);
    if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > 3_600_000) {
      log.error({}, `--drain-grace-ms: "${opts.drainGraceMs}" must be an integer from 0 to 3600000`);
      process.exitCode = 2;
      return;
    }
    let advertiseAddress: string | undefined;
    try {
      advertiseAddress = opts.advertiseAddress === undefined ? undefined : parseAdvertiseAddress(opts.advertiseAddress);
    } catch (error) {
      log.error({}, (error as Error).message);
      process.exitCode = 2;
      return;
    }
    const growthMb = Number(opts.settleGcGrowthMb);
    const growthShare = Number(opts.settleGcGrowthShare);
    const maxPauseMs = Number(opts.settleGcMaxPauseMs);
    if (!(growthMb >= 0) || !(growthShare >= 0) || !(maxPauseMs >= 0)) {
      log.error(
        {},
        `--settle-gc-growth-mb "${opts.settleGcGrowthMb}", --settle-gc-growth-share "${opts.settleGcGrowthShare}", --settle-gc-max-pause-ms "${opts.settleGcMaxPauseMs}": each must be a number, 0 or more`,
      );
      process.exitCode = 2;
      return;
    }
    let tracing: TraceSettings | undefined;
    try {
      tracing = traceSettings(opts.otlpEndpoint, process.env);
    } catch (error) {
      if (!(error instanceof TraceSettingsError)) throw error;
      log.error({}, error.message);
      process.exitCode = 2;
      return;
    }
    // The SDK and its exporter are loaded only when traces are on.
    const traces = tracing && (await import('../tracing/trace-export.js')).startTraceExport(tracing);
    if (tracing) log.info({ exporter: tracing.exporter, ...(tracing.exporter === 'otlp' && { url: tracing.tracesUrl ?? 'from OTEL_EXPORTER_OTLP_* (default http://localhost:4318/v1/traces)' }) }, 'traces of finds are exported');
    // SIGHUP reads the config file again (applied whole or refused whole, logged, counted in /metrics).
    // Until the process runs there is nothing to reload, and the default action would end it.
    process.on('SIGHUP', () => {
      if (running) running.reloadConfig('SIGHUP');
      else log.warn({ signal: 'SIGHUP' }, 'not started yet: nothing to reload');
    });
    opening = true;
    try {
      running = await startCoordinatorProcess({
        config,
        listen: opts.listen,
        metricsListen: metricsAddress(opts.listen, opts.metricsListen),
        ...(opts.httpListen !== undefined && { httpListen: opts.httpListen }),
        dataDir: opts.data,
        log,
        redis: opts.redis,
        clusterMode: opts.clusterMode,
        ...(advertiseAddress !== undefined && { advertiseAddress }),
        security: { insecure: bind.kind === 'insecure' },
        drainGraceMs: graceMs,
        ...(opts.record !== undefined && { record: opts.record }),
        configPath: opts.config,
        ...(traces && { traces }),
        ...((opts.settleGc === 'on' || (opts.settleGc === 'auto' && opts.redis === undefined)) && { settleCollection: { ...DEFAULT_SETTLE_COLLECTION, minGrowthBytes: growthMb * 1024 * 1024, minGrowthRatio: growthShare, maxPauseMs } }),
        onDrained: () => process.exit(0),
      });
    } catch (error) {
      // A certificate that does not read, a token secret missing, a damaged data directory: say which, exit 2.
      if (error instanceof Error && ['CredentialsError', 'SecuritySetupError', 'DataDirectoryError'].includes(error.name)) {
        log.error({}, error.message);
        process.exitCode = 2;
        return;
      }
      // A port taken: the flag to change, not a stack trace.
      const listenError = listenProblem(error, opts.listen, metricsAddress(opts.listen, opts.metricsListen));
      if (listenError !== undefined) {
        log.error({}, listenError);
        process.exit(2);
      }
      throw error;
    }
    if (stopWhenStarted !== undefined) void running.drain(stopWhenStarted).then(() => process.exit(0));
  });

registerClientCommands(program);
registerSimulateCommand(program);
registerSimulateClusterCommand(program);
registerCheckCommand(program);
registerReplayCommand(program);

program.parseAsync().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
