import type { ServerDuplexStream, ServerWritableStream } from '@grpc/grpc-js';
import type { MatchmakingError } from '../../errors/index.js';
import { toServiceError } from './status.js';

type OutboundStream<Out> = ServerWritableStream<unknown, Out> | ServerDuplexStream<unknown, Out>;

/**
 * One server-side stream's life, in one place for every streaming method (FindGame, FindGames,
 * GameServerLink.Connect): writes with back-pressure, a single end (OK, or an error status),
 * timers that die with the stream, and one notice when the peer goes away (cancel, error).
 */
export class StreamLifecycle<Out> {
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly goneListeners: (() => void)[] = [];

  constructor(
    private readonly call: OutboundStream<Out>,
    /**
     * Back-pressure for request streams whose requests make the replies (FindGames): while the
     * client does not read, stop reading its requests. Never for GameServerLink, whose reports
     * (keepalives, confirmations) must be read whatever the order buffer holds.
     */
    private readonly pauseReadsWhenFull = false,
  ) {
    const gone = () => {
      if (this.closed) return;
      this.closed = true;
      this.clearTimers();
      for (const fn of this.goneListeners) fn();
    };
    call.on('cancelled', gone);
    call.on('error', gone);
  }

  get open(): boolean {
    return !this.closed;
  }

  /** The peer went away (cancelled, broken) before we ended the stream. */
  onGone(fn: () => void): void {
    this.goneListeners.push(fn);
  }

  /**
   * Writes unless the stream is over. With `pauseReadsWhenFull`, a full buffer pauses reading
   * the client's requests until it drains.
   */
  write(message: Out): void {
    if (this.closed) return;
    if (!this.call.write(message) && this.pauseReadsWhenFull && 'pause' in this.call && !this.call.isPaused()) {
      const duplex = this.call;
      duplex.pause();
      duplex.once('drain', () => duplex.resume());
    }
  }

  /** Ends the stream once: OK when `error` is undefined, else its status. Later calls do nothing. */
  end(error?: MatchmakingError): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    if (error) this.call.emit('error', toServiceError(error));
    else this.call.end();
  }

  /** Runs `fn` every `ms` while the stream is open (keepalives); stopped with the stream. */
  every(ms: number, fn: () => void): void {
    const timer = setInterval(() => {
      if (!this.closed) fn();
    }, ms);
    timer.unref?.();
    this.timers.push(timer);
  }

  private clearTimers(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
  }
}
