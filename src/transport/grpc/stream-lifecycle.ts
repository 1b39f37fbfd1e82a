import type { ServerDuplexStream, ServerWritableStream } from '@grpc/grpc-js';
import { MatchmakingError } from '../../errors/index.js';
import { toServiceError } from './status.js';

type OutboundStream<Out> = ServerWritableStream<unknown, Out> | ServerDuplexStream<unknown, Out>;

/**
 * How many bytes of replies a peer may leave unread before its stream is ended (a peer that
 * keeps sending but stops reading would otherwise grow the coordinator's memory without bound).
 */
export interface UnreadLimit {
  readonly maxBytes: number;
  /** A reply's encoded size; asked only while replies are queued behind unread ones. */
  readonly sizeOf: (message: never) => number;
  /** The limit ended a stream (counted by the metrics). */
  readonly onExceeded?: () => void;
}

/** Default of limits.maxUnreadBytesPerStream. */
export const DEFAULT_MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/**
 * One server-side stream's life, in one place for every streaming method (FindGame, FindGames,
 * GameServerLink.Connect): writes with back-pressure, a single end (OK, or an error status),
 * timers that die with the stream, and one notice when the peer goes away (cancel, error).
 */
export class StreamLifecycle<Out> {
  private closed = false;
  // Made on first use: a FindGame stream has one gone-listener and no timer, and waits with them.
  private timers: NodeJS.Timeout[] | undefined;
  private goneListeners: (() => void) | (() => void)[] | undefined;
  /** Bytes written since the peer last had nothing unread. */
  private unreadBytes = 0;
  /** Reasons the peer's requests are not read now (see holdReads). */
  private readHolds = 0;
  /** Its write buffer is full: reads are held until it drains (pauseReadsWhenFull). */
  private writeFull = false;

  constructor(
    private readonly call: OutboundStream<Out>,
    /**
     * Back-pressure for request streams whose requests make the replies (FindGames): while the
     * client does not read, stop reading its requests. Never for GameServerLink, whose reports
     * (keepalives, confirmations) must be read whatever the order buffer holds.
     */
    private readonly pauseReadsWhenFull = false,
    private readonly unread?: UnreadLimit,
  ) {
    const gone = () => this.gone();
    call.on('cancelled', gone);
    call.on('error', gone);
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    const listeners = this.goneListeners;
    this.goneListeners = undefined;
    if (typeof listeners === 'function') listeners();
    else if (listeners) for (const fn of listeners) fn();
  }

  get open(): boolean {
    return !this.closed;
  }

  /** The peer went away (cancelled, broken) before we ended the stream. */
  onGone(fn: () => void): void {
    const listeners = this.goneListeners;
    if (listeners === undefined) this.goneListeners = fn;
    else if (typeof listeners === 'function') this.goneListeners = [listeners, fn];
    else listeners.push(fn);
  }

  /**
   * Writes unless the stream is over. With `pauseReadsWhenFull`, a full buffer pauses reading
   * the client's requests until it drains.
   */
  write(message: Out): void {
    if (this.closed) return;
    if (this.unread) {
      // Counted only while earlier replies are still queued: a peer that reads keeps this at 0.
      if (this.call.writableLength === 0) this.unreadBytes = 0;
      else this.unreadBytes += this.unread.sizeOf(message as never);
      if (this.unreadBytes > this.unread.maxBytes) return this.abort();
    }
    if (!this.call.write(message) && this.pauseReadsWhenFull && !this.writeFull) {
      this.writeFull = true;
      this.holdReads();
      this.call.once('drain', () => {
        this.writeFull = false;
        this.releaseReads();
      });
    }
  }

  /**
   * Stops reading the peer's requests until as many releaseReads: a duplex stream's reads are
   * held for more than one reason (replies it does not read, inputs still waiting to be handled),
   * and each reason lets go on its own.
   */
  holdReads(): void {
    if (this.readHolds++ === 0 && 'pause' in this.call) this.call.pause();
  }

  releaseReads(): void {
    if (this.readHolds === 0) return;
    if (--this.readHolds === 0 && 'resume' in this.call) this.call.resume();
  }

  /** Ends the stream once: OK when `error` is undefined, else its status. Later calls do nothing. */
  end(error?: MatchmakingError): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    if (error) this.call.emit('error', toServiceError(error));
    else this.call.end();
  }

  /**
   * The peer left more than the limit unread: the stream ends with RESOURCE_EXHAUSTED (the
   * transport resets it if the status cannot get through either) and everything that depended on
   * it is told it is gone, as if the peer had cancelled.
   */
  private abort(): void {
    const limit = this.unread!;
    limit.onExceeded?.();
    this.call.emit('error', toServiceError(new MatchmakingError('RESOURCE_EXHAUSTED', `limit maxUnreadBytesPerStream: ${this.unreadBytes} bytes of replies left unread (at most ${limit.maxBytes}); stream closed`)));
    this.gone();
  }

  /** Runs `fn` every `ms` while the stream is open (keepalives); stopped with the stream. */
  every(ms: number, fn: () => void): void {
    const timer = setInterval(() => {
      if (!this.closed) fn();
    }, ms);
    timer.unref?.();
    (this.timers ??= []).push(timer);
  }

  private clearTimers(): void {
    if (!this.timers) return;
    for (const t of this.timers) clearInterval(t);
    this.timers = undefined;
  }
}
