import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** HTTP/2 frame types (RFC 9113 §6). */
export const FRAME = { HEADERS: 1, RST_STREAM: 3, PING: 6, GOAWAY: 7 } as const;
const PREFACE = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

/**
 * A TCP proxy in front of an HTTP/2 server that counts the frames each side sends, by type: the
 * ground truth of what a client library puts on the wire (how many RST_STREAMs, which nghttp2's
 * rapid-reset limit counts), whatever the client.
 */
export class Http2FrameCounter {
  /** Frames from clients to the server, by type. */
  readonly fromClient = new Map<number, number>();
  /** Frames from the server to clients, by type. */
  readonly fromServer = new Map<number, number>();
  /** Error codes of the GOAWAY frames the server sent, in order. */
  readonly goawayCodes: number[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.relay(client));
  }

  static async start(target: string): Promise<Http2FrameCounter> {
    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    const counter = new Http2FrameCounter({ host, port });
    await new Promise<void>((resolve) => counter.server.listen(0, '127.0.0.1', resolve));
    return counter;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  count(from: 'client' | 'server', type: number): number {
    return (from === 'client' ? this.fromClient : this.fromServer).get(type) ?? 0;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const upstream = createConnection(this.target);
    this.sockets.add(client).add(upstream);
    client.on('data', frameReader(PREFACE, this.fromClient));
    upstream.on('data', frameReader(0, this.fromServer, (type, payload) => type === FRAME.GOAWAY && this.goawayCodes.push(payload.readUInt32BE(4))));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }
}

/** Counts frames by type in one direction's bytes, skipping `skip` bytes first (the client preface). */
function frameReader(skip: number, counts: Map<number, number>, onFrame?: (type: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let toSkip = skip;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    if (toSkip > 0) {
      const n = Math.min(toSkip, pending.length);
      toSkip -= n;
      at = n;
    }
    while (toSkip === 0 && pending.length - at >= 9) {
      const length = pending.readUIntBE(at, 3);
      if (pending.length - at < 9 + length) break;
      const type = pending[at + 3]!;
      counts.set(type, (counts.get(type) ?? 0) + 1);
      onFrame?.(type, pending.subarray(at + 9, at + 9 + length));
      at += 9 + length;
    }
    pending = pending.subarray(at);
  };
}
