import { status } from '@grpc/grpc-js';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Log } from '../../coordinator/ports.js';
import { corsPolicy } from './cors.js';
import { inMemoryConnection } from './in-memory-connection.js';
import { servedMethods, type ServedMethod } from './served-methods.js';
import { envelope, GatewayRefusal, protocolOf, replyWriter, requestMessage, type CallEnd, type ReplyWriter } from './web-protocols.js';
import { forwardedMetadata, grpcTimeout, replyMetadata, statusOf } from './call-headers.js';

export interface HttpGatewayOptions {
  /** Hands a connection to the gRPC server (its ConnectionInjector): every call goes through its interceptors and handlers. */
  readonly inject: (socket: Duplex) => void;
  /** http.corsOrigins: the origins whose pages may call; none by default. */
  readonly corsOrigins: readonly string[];
  /** limits.maxMessageBytes: a body past four times it (JSON is wordier than protobuf) is refused unread. */
  readonly maxMessageBytes: number;
  readonly log: Log;
  /** An HTTPS server (security.tls); plain HTTP when absent. */
  readonly createServer?: (listener: RequestListener) => Server;
  /** The methods served; by default those of HTTP_SERVICES in the compiled contract. */
  readonly methods?: ReadonlyMap<string, ServedMethod>;
}

export interface RunningHttpGateway {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The Matchmaker and Ratings services over HTTP/1.1 (and HTTP/2 where a proxy speaks it to us):
 * Connect, gRPC-Web and JSON, for browsers and HTTP clients. The gateway only translates: each
 * call is made to the coordinator's own gRPC server over an in-memory HTTP/2 connection per HTTP
 * client connection, so authentication and roles, per-peer limits (the peer is the HTTP client),
 * deadlines, the store gate, the input pacer, and every status code and message are those of the
 * gRPC call, from the same code. What it adds: reading the body and the protocols' framing, JSON
 * (proto3 JSON mapping), and CORS.
 */
export async function startHttpGateway(host: string, port: number, options: HttpGatewayOptions): Promise<RunningHttpGateway> {
  const methods = options.methods ?? servedMethods();
  const cors = corsPolicy(options.corsOrigins);
  const maxBodyBytes = 4 * options.maxMessageBytes + 5;
  const sessions = new Map<Socket, http2.ClientHttp2Session>();

  /** The in-memory gRPC connection speaking for this HTTP connection, opened at its first call. */
  const sessionFor = (socket: Socket): http2.ClientHttp2Session => {
    let session = sessions.get(socket);
    if (session && !session.closed && !session.destroyed) return session;
    session = inMemoryConnection(options.inject, { address: socket.remoteAddress ?? 'unknown', port: socket.remotePort ?? 0, family: socket.remoteFamily ?? 'IPv4' });
    const opened = session;
    sessions.set(socket, opened);
    opened.on('error', () => undefined); // its calls see the end of their streams
    opened.on('close', () => sessions.get(socket) === opened && sessions.delete(socket));
    socket.once('close', () => opened.close());
    return opened;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const origin = req.headers.origin;
    if (req.method === 'OPTIONS') {
      const headers = cors.preflight(origin, req.headers['access-control-request-headers']);
      res.writeHead(headers ? 204 : 403, headers || {}).end();
      return;
    }
    const corsHeaders = cors.headersFor(origin);
    if (corsHeaders === false) {
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'permission_denied', message: `origin ${origin}: not allowed to call this coordinator (http.corsOrigins)` }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { ...corsHeaders, allow: 'POST, OPTIONS', 'content-type': 'application/json' }).end(JSON.stringify({ code: 'unimplemented', message: `${req.method}: calls are POSTed` }));
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const method = methods.get(path);
    const protocol = protocolOf(req.headers['content-type'], method?.serverStreaming ?? false);
    if (!protocol) {
      const why = `content-type ${req.headers['content-type'] ?? '(none)'}: not a protocol served here (Connect: application/proto, application/json, application/connect+proto, application/connect+json; gRPC-Web: application/grpc-web, +proto, +json)`;
      res.writeHead(415, { ...corsHeaders, 'content-type': 'application/json' }).end(JSON.stringify({ code: 'unimplemented', message: why }));
      return;
    }
    const writer = replyWriter(protocol, res, method, corsHeaders ?? {});
    if (!method) return writer.end({ code: status.UNIMPLEMENTED, message: `${path}: not served over HTTP (the methods of ${[...new Set([...methods.keys()].map((p) => p.split('/')[1]))].join(', ')} are)` });
    const encoding = req.headers['content-encoding'] ?? req.headers['connect-content-encoding'] ?? req.headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return writer.end({ code: status.UNIMPLEMENTED, message: `content encoding ${String(encoding)}: not accepted; send the request uncompressed` });
    let timeout: string | undefined;
    try {
      timeout = grpcTimeout(req.headers);
    } catch (error) {
      return writer.end(refusal(error));
    }
    readBody(req, maxBodyBytes).then(
      (body) => {
        if (body === undefined) {
          res.shouldKeepAlive = false; // the rest of the body is not read
          return writer.end({ code: status.RESOURCE_EXHAUSTED, message: `limit maxMessageBytes: a request of more than ${maxBodyBytes} bytes exceeds ${options.maxMessageBytes} (4 times it for JSON)` });
        }
        let message: Uint8Array;
        try {
          message = requestMessage(protocol, body, method);
        } catch (error) {
          return writer.end(refusal(error));
        }
        call(sessionFor(req.socket), method, message, forwardedMetadata(req.headers, timeout), writer, res);
      },
      () => undefined, // the client went away mid-body
    );
  };

  const server = options.createServer ? options.createServer(handle) : createServer(handle);
  // A FindGame waits for its game as long as it takes: no idle timeout on a request in progress.
  server.requestTimeout = 0;
  server.on('clientError', (_error, socket) => socket.destroy());
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
  options.log.debug({ host, port: bound, methods: [...methods.keys()] }, 'HTTP gateway (Connect, gRPC-Web, JSON) listening');
  return {
    server,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions.values()) session.close();
        server.closeAllConnections();
      }),
  };
}

const refusal = (error: unknown): CallEnd =>
  error instanceof GatewayRefusal ? { code: error.code, message: error.message } : { code: status.INTERNAL, message: 'internal error' };

/** The body, or undefined when it is longer than `limit` (the rest is left unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        req.pause();
        req.removeAllListeners('data');
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, length)));
    req.on('error', reject);
  });
}

/** One call through the gRPC server, its reply translated as it comes; the HTTP client leaving cancels it. */
function call(session: http2.ClientHttp2Session, method: ServedMethod, message: Uint8Array, metadata: http2.OutgoingHttpHeaders, writer: ReplyWriter, res: ServerResponse): void {
  let ended = false;
  const finish = (end: CallEnd) => {
    if (ended) return;
    ended = true;
    writer.end(end);
  };
  let stream: http2.ClientHttp2Stream;
  try {
    stream = session.request({ ...metadata, ':method': 'POST', ':path': method.path, 'content-type': 'application/grpc', te: 'trailers' });
  } catch {
    return finish({ code: status.UNAVAILABLE, message: 'the coordinator is shutting down; retry' });
  }
  res.on('close', () => {
    if (!ended) stream.close(http2.constants.NGHTTP2_CANCEL);
  });
  stream.on('response', (headers) => {
    if (headers['grpc-status'] !== undefined) return finish(statusOf(headers)); // trailers-only: an error before any reply
    writer.begin(replyMetadata(headers));
  });
  let pending: Buffer = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const length = pending.readUInt32BE(1);
      if (pending.length < 5 + length) break;
      const fits = writer.message(pending.subarray(5, 5 + length));
      pending = pending.subarray(5 + length);
      if (!fits) {
        stream.pause();
        res.once('drain', () => stream.resume());
      }
    }
  });
  stream.on('trailers', (trailers) => finish(statusOf(trailers)));
  stream.on('error', () => undefined); // answered on close
  stream.on('close', () => {
    if (ended) return;
    const cancelled = stream.rstCode === http2.constants.NGHTTP2_CANCEL;
    finish({ code: cancelled ? status.CANCELLED : status.UNAVAILABLE, message: cancelled ? 'the call was cancelled' : 'the coordinator ended the call without a status; retry' });
  });
  stream.end(envelope(0, message));
}
