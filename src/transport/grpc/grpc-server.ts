import { Server, ServerCredentials, status, type ServerInterceptor, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { GrpcSettings } from '../../config/config.js';
import type { MatchmakingError } from '../../errors/index.js';
import { GRPC_DEFAULTS } from '../../config/schema.js';
import type { CoordinatorCommands, CoordinatorView } from '../../coordinator/edges/index.js';
import type { Log } from '../../coordinator/ports.js';
import { LIMITS } from '../../attributes/limits.js';
import {
  AdminService,
  type DrainRequest,
  type DrainResponse,
  type ReloadConfigRequest,
  type ReloadConfigResponse,
} from '../../generated/gamefactory/v1/admin.js';
import { CoordinatorMessage, GameServerLinkService, ServerMessage } from '../../generated/gamefactory/v1/game_server_link.js';
import { CallDrain } from './call-drain.js';
import { requestDecoding, tolerantService } from './request-decoding.js';
import { MatchmakerService } from '../../generated/gamefactory/v1/matchmaker.js';
import { decodeFindGameRequest, decodeFindGamesRequest } from './find-games-decoding.js';
import { encodeFindGameUpdate } from './update-encoding.js';
import { BufferReader, bufferReaderDeserializer, reusedWriterSerializer } from './wire-buffers.js';
import { RatingsService } from '../../generated/gamefactory/v1/ratings.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import type { RatingsView } from '../../ratings/ratings-view.js';
import { connectHandler } from './game-server-link.js';
import { DEFAULT_MAX_UNREAD_BYTES } from './stream-lifecycle.js';
import { watchStreamResets } from './stream-reset-budget.js';
import { interceptorChain, type CallGate, type CallRecord } from './interceptors/index.js';
import { InputPacer } from './input-pacer.js';
import { nameSizeLimitInRefusals } from './oversize-refusal.js';
import { matchmakerHandlers } from './matchmaker.js';
import type { FindTracing } from '../../tracing/find-tracing.js';
import { ratingsHandlers } from './ratings-service.js';
import { contractReflection } from './reflection.js';
import { servedOverHttp, type HttpGatewaySettings } from '../http/grpc-injection.js';
import type { RunningHttpGateway } from '../http/http-gateway.js';

/** What a drained coordinator tells its clients to wait before retrying (metadata retry-after-ms). */
export const DRAIN_RETRY_AFTER_MS = 2000;

export interface GrpcServerOptions {
  readonly commands: CoordinatorCommands;
  readonly view: CoordinatorView;
  /** QueryStats for the whole cluster (a cluster node); absent, the view answers (this process runs every factory). */
  readonly clusterStats?: (query: StatsQuery, now: number) => Promise<StatsAnswer>;
  /** The Ratings service reads through this; not served when absent. */
  readonly ratings?: RatingsView;
  readonly keepaliveIntervalMs: number;
  /** factories.yaml `grpc`; GRPC_DEFAULTS when left out. */
  readonly settings?: GrpcSettings;
  readonly now: () => number;
  readonly log: Log;
  readonly onServerMessageRejected?: (kind: string) => void;
  readonly onFindRefused?: (code: number) => void;
  /** Why a new ticket is refused when its turn comes, if it is (the store gate's question, asked again). */
  readonly refuseNewTicket?: (ticketId: string) => MatchmakingError | undefined;
  /** Authentication, roles, rate limits: checked on every call before its handler (see interceptors/). */
  readonly gates?: readonly CallGate[];
  /** Every call's end (method, status, duration). */
  readonly onCallEnded?: (record: CallRecord) => void;
  /** Longest a unary call may take. */
  readonly unaryLimitMs?: number;
  /** TLS (security.tls, hot reloaded); plaintext when absent. */
  readonly credentials?: ServerCredentials;
  /** limits.maxMessageBytes: the one message-size setting, both directions. */
  readonly maxMessageBytes?: number;
  /** A limit refused a message or ended a stream (counted by the metrics). */
  readonly onLimit?: (limit: 'maxMessageBytes' | 'maxUnreadBytesPerStream', peer: string) => void;
  /** limits.maxUnreadBytesPerStream: replies a peer may leave unread before its stream ends. */
  readonly maxUnreadBytesPerStream?: number;
  /** Raw interceptors after the gates (the security interceptor). */
  readonly extra?: readonly ServerInterceptor[];
  /** Admin.Drain was called (its role is checked by the chain): the process drains and exits. */
  readonly onDrainRequested?: (reason: string) => { graceMs: number };
  /** A connection was ended gracefully (GOAWAY NO_ERROR) before its client's stream resets made nghttp2 kill it. */
  readonly onStreamResetsRotated?: (peer: string) => void;
  /** Admin.ReloadConfig was called (admins only, checked by the chain): the process reads its config file again. */
  readonly onReloadRequested?: () => ReloadAnswer;
  /** Traces of finds (src/tracing), when they are on. */
  readonly findTracing?: FindTracing;
  /** --http-listen: the Matchmaker and Ratings also over Connect, gRPC-Web and JSON, through this server's chain and handlers. */
  readonly http?: HttpGatewaySettings;
}

/** What a reload tells the Admin caller: the changes, or why the file was refused (with its gRPC code). */
export type ReloadAnswer =
  | { readonly path: string; readonly changes: readonly string[] }
  | { readonly refused: 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION'; readonly details: string };

export interface RunningGrpcServer {
  readonly server: Server;
  readonly port: number;
  readonly health: HealthImplementation;
  /** The HTTP gateway's port, when --http-listen started one. */
  readonly httpPort?: number;
  /** Refuses new calls (UNAVAILABLE + retry hint) and turns health NOT_SERVING. */
  refuseNewCalls(): void;
  /** Ends every open stream with UNAVAILABLE + retry-after-ms; returns how many. */
  endStreams(): number;
  /** Waits for calls in flight up to `graceMs` (2 s when left out), then closes every connection. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * The coordinator's gRPC face: GameServerLink, Matchmaker and Ratings, plus the standard health checking
 * service and server reflection so any gRPC client in any language can discover and call them.
 */
export async function startGrpcServer(address: string, options: GrpcServerOptions): Promise<RunningGrpcServer> {
  nameSizeLimitInRefusals();
  const settings = options.settings ?? GRPC_DEFAULTS;
  const maxMessageBytes = options.maxMessageBytes ?? LIMITS.maxMessageBytes;
  const drain = new CallDrain(DRAIN_RETRY_AFTER_MS);
  const server = new Server({
    // One setting: grpc-js drops a larger frame from its length prefix, before buffering it, and
    // oversize-refusal.ts makes that refusal name limits.maxMessageBytes; the tolerant
    // deserializers check the same size on what a compressed message inflates to.
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
    // Detect dead peers on idle connections too.
    'grpc.keepalive_time_ms': settings.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': settings.keepaliveTimeoutMs,
    'grpc.keepalive_permit_without_calls': 1,
    // Not 'grpc.enable_channelz': 0, though nothing serves channelz and it costs every call an
    // event tracker (an object and four closures) and a Date.now() per message: in grpc-js 1.14.7
    // forceShutdown only destroys the sessions channelz recorded, so with it off a shutdown left
    // open streams hanging (test/integration/placement.test.ts, the restart case).
    interceptors: interceptorChain({
      log: options.log,
      now: options.now,
      gates: [drain.gate, ...(options.gates ?? [])],
      // Undecodable requests end before anything reads them; open streams are kept for a drain.
      concerns: [requestDecoding(options.onLimit), drain.concern],
      extra: options.extra,
      onCallEnded: options.onCallEnded,
      unaryLimitMs: options.unaryLimitMs,
    }),
  });
  // One queue for every stream's inputs, so they are handled in arrival order, a turn's share at a time.
  const pacer = new InputPacer((error) => options.log.warn({ err: error }, 'handling an input failed'));
  const unread = { maxBytes: options.maxUnreadBytesPerStream ?? DEFAULT_MAX_UNREAD_BYTES, onExceeded: () => options.onLimit?.('maxUnreadBytesPerStream', '') };
  const tolerant = <S extends Parameters<typeof tolerantService>[0]>(service: S) => tolerantService(service, maxMessageBytes, options.onLimit);
  // The methods every ticket passes through read and write their messages through wire-buffers.ts.
  const updates = reusedWriterSerializer(encodeFindGameUpdate);
  const linkService = {
    ...GameServerLinkService,
    connect: { ...GameServerLinkService.connect, requestDeserialize: bufferReaderDeserializer(ServerMessage.decode), responseSerialize: reusedWriterSerializer(CoordinatorMessage.encode) },
  };
  const matchmakerService = {
    ...MatchmakerService,
    findGame: { ...MatchmakerService.findGame, requestDeserialize: (bytes: Buffer) => decodeFindGameRequest(new BufferReader(bytes)), responseSerialize: updates },
    findGames: { ...MatchmakerService.findGames, requestDeserialize: (bytes: Buffer) => decodeFindGamesRequest(new BufferReader(bytes)), responseSerialize: updates },
  };
  server.addService(tolerant(linkService), {
    connect: connectHandler(options.commands, {
      keepaliveIntervalMs: options.keepaliveIntervalMs,
      now: options.now,
      log: options.log,
      onRejected: options.onServerMessageRejected,
      unread,
      pacer,
    }),
  });
  server.addService(
    tolerant(matchmakerService),
    matchmakerHandlers(options.commands, options.view, { now: options.now, log: options.log, onRefused: options.onFindRefused, clusterStats: options.clusterStats, pacer, refuseNewTicket: options.refuseNewTicket, tracing: options.findTracing }),
  );

  if (options.ratings) server.addService(tolerant(RatingsService), ratingsHandlers(options.ratings));
  server.addService(tolerant(AdminService), {
    drain: (call: ServerUnaryCall<DrainRequest, DrainResponse>, callback: sendUnaryData<DrainResponse>) => {
      if (!options.onDrainRequested) return callback({ code: 12, details: 'Drain: this server was started without a drain' });
      const { graceMs } = options.onDrainRequested(call.request.reason.slice(0, 256));
      callback(null, { graceMs });
    },
    reloadConfig: (_call: ServerUnaryCall<ReloadConfigRequest, ReloadConfigResponse>, callback: sendUnaryData<ReloadConfigResponse>) => {
      if (!options.onReloadRequested) return callback({ code: status.UNIMPLEMENTED, details: 'ReloadConfig: this server was started without a configuration file' });
      const answer = options.onReloadRequested();
      if ('refused' in answer) return callback({ code: status[answer.refused], details: answer.details });
      callback(null, { path: answer.path, changes: [...answer.changes] });
    },
  });

  const health = new HealthImplementation({
    '': 'SERVING',
    'gamefactory.v1.GameServerLink': 'SERVING',
    'gamefactory.v1.Matchmaker': 'SERVING',
    ...(options.ratings && { 'gamefactory.v1.Ratings': 'SERVING' }),
  });
  // Health and reflection come with their own service definitions, whose requestDeserialize
  // throws on bytes that are not their message: grpc-js then answers INTERNAL (Check) or never
  // answers (Watch, reflection's stream). Added through the same tolerant deserializers as ours.
  const tolerantServer = { addService: (service, implementation) => server.addService(tolerant(service), implementation) } as Pick<Server, 'addService'>;
  health.addToServer(tolerantServer as Server);

  contractReflection().addToServer(tolerantServer);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, options.credentials ?? ServerCredentials.createInsecure(), (err, boundPort) =>
      err ? reject(err) : resolve(boundPort),
    ),
  );

  const gateway: RunningHttpGateway | undefined = options.http && (await servedOverHttp(server, options.http, { maxMessageBytes, log: options.log }));

  watchStreamResets(server, {
    onRotated: (peer) => {
      options.log.info({ peer }, 'connection ended gracefully (GOAWAY NO_ERROR): its client reset too many streams');
      options.onStreamResetsRotated?.(peer);
    },
  });

  return {
    server,
    port,
    health,
    ...(gateway && { httpPort: gateway.port }),
    refuseNewCalls() {
      drain.refuseNewCalls();
      for (const name of ['', 'gamefactory.v1.GameServerLink', 'gamefactory.v1.Matchmaker']) health.setStatus(name, 'NOT_SERVING');
    },
    endStreams: () => drain.endStreams(),
    shutdown: (graceMs = 2000) =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        // HTTP calls are gRPC calls of this server: they end with the others, then the gateway closes.
        gateway?.server.close();
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          if (gateway) void gateway.close().then(resolve);
          else resolve();
        });
      }),
  };
}
