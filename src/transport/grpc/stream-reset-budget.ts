import type { Server } from '@grpc/grpc-js';
import { constants, type Http2Server, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { performance } from 'node:perf_hooks';

/**
 * HTTP/2 rapid-reset protection (CVE-2023-44487) as nghttp2 1.57+ applies it to every Node http2
 * server: each RST_STREAM a client sends takes a token from a bucket of 1,000 refilled at 33 a
 * second, and an empty bucket closes the connection with GOAWAY INTERNAL_ERROR, failing every call
 * in flight on it ("Session closed with error code 2" in grpc-js). A legitimate client reaches that
 * just by cancelling calls or letting deadlines pass (players who give up waiting for a game). Node
 * 22's `streamResetBurst`/`streamResetRate` raise the limit; Node 20 has no such option (they are
 * ignored), so the coordinator keeps its own copy of the bucket per connection, spent by the same
 * thing (RST_STREAMs from the client, see resetByClient), and before nghttp2's runs dry ends the
 * connection gracefully: GOAWAY NO_ERROR, calls in flight go on, the client opens a new connection
 * (a fresh bucket) for its next calls. An attacker's resets still cost it a reconnect every ~500
 * resets, and nghttp2's own limit stays in force behind ours.
 */
export const NGHTTP2_STREAM_RESET_LIMIT = { burst: 1000, perSecond: 33 } as const;
/** Tokens kept back for the resets of calls still in flight when the graceful GOAWAY goes out. */
export const STREAM_RESET_RESERVE = 500;

/** A token bucket, refilled continuously; `take` spends one and says how many are left. */
export class StreamResetBudget {
  private tokens: number;
  private at: number;

  constructor(
    private readonly limit: { readonly burst: number; readonly perSecond: number },
    now: number,
  ) {
    this.tokens = limit.burst;
    this.at = now;
  }

  take(now: number): number {
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) / 1000) * this.limit.perSecond);
    this.at = now;
    this.tokens = Math.max(0, this.tokens - 1);
    return this.tokens;
  }
}

export interface StreamResetWatch {
  readonly limit?: { readonly burst: number; readonly perSecond: number };
  readonly reserve?: number;
  /** Monotonic milliseconds. */
  readonly now?: () => number;
  /** A connection was ended gracefully because its client reset too many streams. */
  readonly onRotated?: (peer: string) => void;
}

/**
 * Watches every connection of a bound grpc-js server. grpc-js keeps its http2 servers in a private
 * field; it is checked, so a grpc-js without it fails at start instead of silently losing this.
 */
export function watchStreamResets(server: Server, watch: StreamResetWatch = {}): void {
  const http2Servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(http2Servers instanceof Map)) throw new Error('grpc-js Server has no http2Servers map: cannot watch HTTP/2 stream resets');
  for (const http2Server of http2Servers.keys() as IterableIterator<Http2Server>) {
    http2Server.on('session', (session: Http2Session) => watchSession(session, watch));
  }
}

function watchSession(session: Http2Session, watch: StreamResetWatch): void {
  const now = watch.now ?? (() => performance.now());
  const limit = watch.limit ?? NGHTTP2_STREAM_RESET_LIMIT;
  const reserve = watch.reserve ?? STREAM_RESET_RESERVE;
  const budget = new StreamResetBudget(limit, now());
  let rotated = false;
  session.on('stream', (stream: ServerHttp2Stream) => {
    stream.once('close', () => {
      if (rotated || !resetByClient(stream)) return;
      if (budget.take(now()) >= reserve) return;
      rotated = true;
      if (session.closed || session.destroyed) return;
      watch.onRotated?.(session.socket?.remoteAddress ?? '');
      endGracefully(session);
    });
  });
}

/**
 * As grpc-js does for max connection age: a GOAWAY naming no last stream first, so calls already on
 * their way are still taken, then close(), which lets the open ones finish.
 */
function endGracefully(session: Http2Session): void {
  try {
    session.goaway(constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1);
    session.close();
  } catch {
    session.destroy();
  }
}

/**
 * Whether the client sent, or may have sent, a RST_STREAM for this stream: what nghttp2's limit
 * counts and this budget defends against (rapid reset is a flood of client RST_STREAMs). A stream
 * the client reset while it was open closes with the RST_STREAM's code; one the coordinator
 * answered before reading the client's request to its end may still be reset. Both sides' deadlines
 * firing together is the one ordinary race in which a client's RST_STREAM arrives after the
 * coordinator's status (the stream already closed here, so Node never shows it), so an answer of
 * DEADLINE_EXCEEDED counts too. Calls the coordinator answered with an error (undecodable,
 * oversize, refused) or ended with CANCELLED end cleanly on both sides: no client library resets
 * them, so they cost nothing; counting them ended a gateway's connection after ~500 of its players'
 * bad requests, and every call on it had to move to a new connection.
 */
function resetByClient(stream: ServerHttp2Stream): boolean {
  if (stream.rstCode > constants.NGHTTP2_NO_ERROR) return true;
  // Ended before its request was read to the end: the client may still reset it (a peer that
  // stops reading and then gives up resets a stream the coordinator already answered).
  if (!stream.readableEnded) return true;
  const status = stream.sentTrailers?.['grpc-status'] ?? stream.sentHeaders?.['grpc-status'];
  return String(status) === String(GRPC_DEADLINE_EXCEEDED);
}

const GRPC_DEADLINE_EXCEEDED = 4;
