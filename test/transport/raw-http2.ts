import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';

/** A gRPC message on the wire: compressed flag, 4-byte length, the bytes. */
export function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

/** How a raw stream ended: grpc-status from trailers (or headers), or the RST_STREAM code. */
export interface RawEnd {
  readonly grpcStatus?: number;
  readonly grpcMessage?: string;
  readonly rstCode?: number;
}

/**
 * A bare HTTP/2 client (node:http2), for what grpc-js clients never do: stop reading, share one
 * connection among streams we control frame by frame.
 */
export class RawGrpcConnection {
  readonly session: ClientHttp2Session;

  constructor(address: string) {
    // Megabytes: the default (10) would make this client reset its own streams when many send large messages at once.
    this.session = connect(`http://${address}`, { maxSessionMemory: 1000 });
    this.session.on('error', () => {});
  }

  /** Opens a call; `read: false` never consumes its responses (the peer that stops reading). */
  open(path: string, { read }: { read: boolean }): { stream: ClientHttp2Stream; ended: Promise<RawEnd>; received: () => number } {
    const stream = this.session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      te: 'trailers',
    });
    let receivedBytes = 0;
    if (read) stream.on('data', (chunk: Buffer) => (receivedBytes += chunk.length));
    else stream.pause();
    stream.on('error', () => {});
    const ended = new Promise<RawEnd>((resolve) => {
      let status: RawEnd | undefined;
      const fromHeaders = (headers: Record<string, unknown>) => {
        if (headers['grpc-status'] !== undefined) status = { grpcStatus: Number(headers['grpc-status']), grpcMessage: decodeURIComponent(String(headers['grpc-message'] ?? '')) };
      };
      stream.on('response', fromHeaders);
      stream.on('trailers', (headers) => {
        fromHeaders(headers);
        if (status) resolve(status);
      });
      // A trailers-only answer (status in the response headers) ends the readable side with no
      // 'trailers' event, and 'close' waits for writes the server will never take: 'end' settles it.
      stream.on('end', () => resolve(status ?? { rstCode: stream.rstCode }));
      stream.on('close', () => resolve(status ?? { rstCode: stream.rstCode }));
    });
    return { stream, ended, received: () => receivedBytes };
  }

  close(): void {
    this.session.destroy();
  }
}

/** Writes and resolves when the bytes are handed to the session (false if the stream ended first). */
export function write(stream: ClientHttp2Stream, bytes: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.closed) return resolve(false);
    stream.write(bytes, (error) => resolve(!error));
    stream.once('close', () => resolve(false));
  });
}
