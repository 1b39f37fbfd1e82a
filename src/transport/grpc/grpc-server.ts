import { Server, ServerCredentials } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GrpcSettings } from '../../config/config.js';
import { GRPC_DEFAULTS } from '../../config/schema.js';
import type { CoordinatorCommands, CoordinatorView } from '../../coordinator/edges/index.js';
import type { Log } from '../../coordinator/ports.js';
import { GameServerLinkService } from '../../generated/gamefactory/v1/game_server_link.js';
import { MatchmakerService } from '../../generated/gamefactory/v1/matchmaker.js';
import { RatingsService } from '../../generated/gamefactory/v1/ratings.js';
import type { RatingsView } from '../../ratings/ratings-view.js';
import { connectHandler } from './game-server-link.js';
import { interceptorChain, type CallGate, type CallRecord } from './interceptors/index.js';
import { matchmakerHandlers } from './matchmaker.js';
import { ratingsHandlers } from './ratings-service.js';

const PROTO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../proto');
const PROTO_FILES = ['gamefactory/v1/game_server_link.proto', 'gamefactory/v1/matchmaker.proto', 'gamefactory/v1/ratings.proto'];

export interface GrpcServerOptions {
  readonly commands: CoordinatorCommands;
  readonly view: CoordinatorView;
  /** The Ratings service (issue 12) reads through this; not served when absent. */
  readonly ratings?: RatingsView;
  readonly keepaliveIntervalMs: number;
  /** factories.yaml `grpc`; GRPC_DEFAULTS when left out. */
  readonly settings?: GrpcSettings;
  readonly now: () => number;
  readonly log: Log;
  readonly onServerMessageRejected?: (kind: string) => void;
  readonly onFindRefused?: (code: number) => void;
  /** Authentication, roles, rate limits: checked on every call before its handler (see interceptors/). */
  readonly gates?: readonly CallGate[];
  /** Every call's end (method, status, duration). */
  readonly onCallEnded?: (record: CallRecord) => void;
  /** Longest a unary call may take. */
  readonly unaryLimitMs?: number;
}

export interface RunningGrpcServer {
  readonly server: Server;
  readonly port: number;
  readonly health: HealthImplementation;
  shutdown(): Promise<void>;
}

/**
 * The coordinator's gRPC face: GameServerLink, Matchmaker and Ratings, plus the standard health checking
 * service and server reflection so any gRPC client in any language can discover and call them.
 */
export async function startGrpcServer(address: string, options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const settings = options.settings ?? GRPC_DEFAULTS;
  const server = new Server({
    'grpc.max_receive_message_length': settings.maxReceiveMessageBytes,
    'grpc.max_send_message_length': settings.maxSendMessageBytes,
    // Detect dead peers on idle connections too.
    'grpc.keepalive_time_ms': settings.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': settings.keepaliveTimeoutMs,
    'grpc.keepalive_permit_without_calls': 1,
    interceptors: interceptorChain({
      log: options.log,
      now: options.now,
      gates: options.gates,
      onCallEnded: options.onCallEnded,
      unaryLimitMs: options.unaryLimitMs,
    }),
  });
  server.addService(GameServerLinkService, {
    connect: connectHandler(options.commands, {
      keepaliveIntervalMs: options.keepaliveIntervalMs,
      now: options.now,
      log: options.log,
      onRejected: options.onServerMessageRejected,
    }),
  });
  server.addService(
    MatchmakerService,
    matchmakerHandlers(options.commands, options.view, { now: options.now, log: options.log, onRefused: options.onFindRefused }),
  );

  if (options.ratings) server.addService(RatingsService, ratingsHandlers(options.ratings));

  const health = new HealthImplementation({
    '': 'SERVING',
    'gamefactory.v1.GameServerLink': 'SERVING',
    'gamefactory.v1.Matchmaker': 'SERVING',
    ...(options.ratings && { 'gamefactory.v1.Ratings': 'SERVING' }),
  });
  health.addToServer(server);

  const definitions = loadSync([...PROTO_FILES, healthProtoPath], {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  new ReflectionService(definitions).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, boundPort) =>
      err ? reject(err) : resolve(boundPort),
    ),
  );

  return {
    server,
    port,
    health,
    shutdown: () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        const force = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
