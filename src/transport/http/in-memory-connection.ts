import http2 from 'node:http2';
import { Duplex } from 'node:stream';

/** Where an HTTP client connects from, as the gRPC server reports a peer (address and port). */
export interface PeerAddress {
  readonly address: string;
  readonly port: number;
  readonly family: string;
}

/** One end of an in-memory byte pipe: what one side writes, the other reads. */
class PipeEnd extends Duplex {
  other!: PipeEnd;
  /** Set on the server's end: the HTTP client this connection speaks for. */
  peer?: PeerAddress;

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // HTTP/2 flow control bounds what is in flight, so the pipe needs no back-pressure of its own.
    this.other.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.other.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.other.destroyed) this.other.destroy();
    callback(error);
  }
}

/**
 * An HTTP/2 connection to the gRPC server held in memory: the gateway's client end, the server's
 * end handed to `inject` (grpc-js' ConnectionInjector). The server end carries the HTTP client's
 * address, which `peerOnSession` gives the session's socket, so the gRPC server's per-peer limits
 * and logs see each HTTP client as the peer it is.
 */
export function inMemoryConnection(inject: (socket: Duplex) => void, peer: PeerAddress): http2.ClientHttp2Session {
  const client = new PipeEnd();
  const server = new PipeEnd();
  client.other = server;
  server.other = client;
  server.peer = peer;
  inject(server);
  return http2.connect('http://gateway.invalid', { createConnection: () => client });
}

/**
 * For the gRPC server's sessions on injected connections: sets the peer address its calls report
 * (`call.getPeer()` reads the session socket's remoteAddress). Node wraps a Duplex that is not a
 * net.Socket in a socket of its own (JSStreamSocket) whose address is the `_peername` it caches;
 * the session's socket proxy writes through to it, and reads the wrapped stream back as `stream`.
 */
export function peerOnSession(session: http2.ServerHttp2Session): void {
  const socket = session.socket as unknown as { stream?: unknown; _peername?: PeerAddress };
  const stream = socket.stream;
  if (stream instanceof PipeEnd && stream.peer) socket._peername = stream.peer;
}
