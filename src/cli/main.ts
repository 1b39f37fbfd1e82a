#!/usr/bin/env node
import { Command, Option } from 'commander';
import { splitHostPort, startCoordinatorProcess } from '../app/coordinator-process.js';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { decideBind } from '../security/dev-mode.js';
import { createLogger } from './logger.js';
import { registerSimulateCommand } from './simulate-command.js';

const program = new Command()
  .name('gamefactory')
  .description('Game-agnostic matchmaking coordinator in the style of Battle.net game factories');

program
  .command('start', { isDefault: true })
  .description('run the coordinator')
  .addOption(new Option('--listen <host:port>', 'gRPC address (port 0: any free port)').env('GAMEFACTORY_LISTEN').default('0.0.0.0:50051'))
  .addOption(
    new Option('--metrics-listen <host:port>', 'Prometheus /metrics address (port 0: any free port)')
      .env('GAMEFACTORY_METRICS_LISTEN')
      .default('0.0.0.0:9464'),
  )
  .addOption(new Option('--config <path>', 'factory templates').env('GAMEFACTORY_CONFIG').default('factories.yaml'))
  .addOption(new Option('--data <dir>', 'LMDB data directory').env('GAMEFACTORY_DATA').default('data'))
  .addOption(new Option('--redis <url>', 'join a cluster of nodes sharing this Redis: redis://host:port or redis-cluster://host:port,...').env('GAMEFACTORY_REDIS'))
  .addOption(
    new Option('--log-format <format>', 'json, or pretty for people').env('GAMEFACTORY_LOG_FORMAT').choices(['json', 'pretty']).default('json'),
  )
  .addOption(new Option('--log-level <level>', 'pino log level').env('GAMEFACTORY_LOG_LEVEL').default('info'))
  .addOption(new Option('--insecure', 'development mode: plaintext, every caller trusted (loopback only)').env('GAMEFACTORY_INSECURE').default(false))
  .addOption(
    new Option('--allow-insecure-bind', 'allow development mode on a non-loopback address').env('GAMEFACTORY_ALLOW_INSECURE_BIND').default(false),
  )
  .action(async (opts: { listen: string; metricsListen: string; config: string; data: string; redis?: string; logFormat: 'json' | 'pretty'; logLevel: string; insecure: boolean; allowInsecureBind: boolean }) => {
    const log = createLogger(opts.logFormat, opts.logLevel);
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
    // Issue 14: plaintext only on loopback unless forced.
    const bind = decideBind({ host: splitHostPort('listen', opts.listen).host, tls: config.security?.tls !== undefined, insecure: opts.insecure, allowInsecureBind: opts.allowInsecureBind });
    if (bind.kind === 'refuse') {
      log.error({}, bind.reason);
      process.exitCode = 2;
      return;
    }
    if (bind.kind === 'secure') {
      // TODO(issue 14 wiring): pass tlsServerCredentials(config.security.tls) to the gRPC server with the interceptor chain.
      log.error({}, 'security.tls: serving TLS lands with the interceptor chain (issue 14); until then use --insecure on loopback');
      process.exitCode = 2;
      return;
    }
    log.warn({}, bind.warning);
    const running = await startCoordinatorProcess({
      config,
      listen: opts.listen,
      metricsListen: opts.metricsListen,
      dataDir: opts.data,
      log,
      redis: opts.redis,
    });
    const stop = async (signal: string) => {
      log.info({ signal }, 'shutting down');
      await running.stop();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
  });

program
  .command('example-server')
  .description('run an example game server that hosts every factory it can and seats its players at once')
  .option('--coordinator <host:port>', 'coordinator address', '127.0.0.1:50051')
  .option('--id <serverId>', 'server id', `example-${process.pid}`)
  .option('--endpoint <host:port>', 'address players would connect to', '127.0.0.1:7777')
  .option('--max-games <n>', 'slots: max concurrent games', '100')
  .option('--attr <key=value...>', 'server attributes, e.g. version=v201', [])
  .action(async (opts: { coordinator: string; id: string; endpoint: string; maxGames: string; attr: string[] }) => {
    const { runExampleServer } = await import('../../clients/examples/game-server.js');
    await runExampleServer(opts);
  });

program
  .command('find')
  .description('an example player client: FindGame and print each update (queued at position N, then the assignment)')
  .option('--coordinator <host:port>', 'coordinator address', '127.0.0.1:50051')
  .option('--template <name>', 'factory template', 'diablo')
  .option('--player <id...>', 'the party', [`player-${process.pid}`])
  .option('--partition <key=value...>', 'partitioning attributes', ['difficulty=hard', 'hardcore=false', 'version=v201'])
  .option('--match <key=value...>', 'matchable attributes', [])
  .option('--json', 'print each update as one line of JSON, for scripts')
  .action(async (opts: { coordinator: string; template: string; player: string[]; partition: string[]; match: string[]; json?: boolean }) => {
    const { runExampleClient } = await import('../../clients/examples/player-client.js');
    await runExampleClient(opts);
  });

program
  .command('loadgen')
  .description('load generator: fake game servers and a FindGame arrival rate against any coordinator')
  .option('--coordinator <host:port>', 'coordinator address', '127.0.0.1:50051')
  .option('--servers <n>', 'fake game servers to connect', '10')
  .option('--max-games <n>', 'slots per fake server', '1000')
  .option('--players-per-game <n>', 'a fake server ends a game when this many players are in it', '4')
  .option('--tickets <n>', 'FindGame tickets to send', '20000')
  .option('--rate <n>', 'arrivals per second (0: as fast as --concurrency allows)', '0')
  .option('--concurrency <n>', 'most tickets in flight', '512')
  .option('--mode <mode>', 'unary (a FindGame call per ticket) or stream (one FindGames stream)', 'stream')
  .option('--template <name>', 'factory template', 'diablo')
  .option('--partition <key=value...>', 'partitioning attributes', ['difficulty=hard', 'hardcore=false', 'version=v201'])
  .option('--match <key=value...>', 'matchable attributes', [])
  .action(async (opts: Record<string, string & string[]>) => {
    const { runLoadCommand } = await import('../../clients/loadgen/load-command.js');
    await runLoadCommand(opts);
  });

registerSimulateCommand(program);

program.parseAsync().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
