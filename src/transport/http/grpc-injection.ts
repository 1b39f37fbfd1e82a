import { ServerCredentials, type Server } from '@grpc/grpc-js';
import type http2 from 'node:http2';
import type { RequestListener, Server as HttpServer } from 'node:http';
import type { Log } from '../../coordinator/ports.js';
import { startHttpGateway, type RunningHttpGateway } from './http-gateway.js';
import { peerOnSession } from './in-memory-connection.js';

/** --http-listen and what goes with it. */
export interface HttpGatewaySettings {
  readonly host: string;
  readonly port: number;
  /** http.corsOrigins; none by default. */
  readonly corsOrigins: readonly string[];
  /** HTTPS (security.tls, the same certificate as the other ports); plain HTTP when absent. */
  readonly createServer?: (listener: RequestListener) => HttpServer;
}

/**
 * Starts the HTTP gateway in front of a gRPC server: its calls enter the server as connections
 * injected through grpc-js' ConnectionInjector, so they pass the same interceptor chain and
 * handlers as every gRPC call (in-memory, so without TLS of their own: the HTTP port has it).
 */
export async function servedOverHttp(server: Server, settings: HttpGatewaySettings, limits: { readonly maxMessageBytes: number; readonly log: Log }): Promise<RunningHttpGateway> {
  const before = new Set(http2ServersOf(server).keys());
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  // grpc-js keeps the injector's HTTP/2 server among its own (shut down with them); its sessions
  // get the HTTP client's address as their peer.
  for (const h2 of http2ServersOf(server).keys()) if (!before.has(h2)) h2.on('session', peerOnSession);
  return startHttpGateway(settings.host, settings.port, {
    inject: (socket) => injector.injectConnection(socket),
    corsOrigins: settings.corsOrigins,
    maxMessageBytes: limits.maxMessageBytes,
    log: limits.log,
    ...(settings.createServer && { createServer: settings.createServer }),
  });
}

/** grpc-js 1.14's private map of its HTTP/2 servers (checked by test/transport/http-gateway.test.ts through the peer limits). */
function http2ServersOf(server: Server): Map<http2.Http2Server, unknown> {
  const servers = (server as unknown as { http2Servers?: Map<http2.Http2Server, unknown> }).http2Servers;
  if (!(servers instanceof Map)) throw new Error('grpc-js no longer keeps http2Servers: the HTTP gateway cannot name its peers');
  return servers;
}
