import { resourceExhausted } from '../errors.js';
import type { LimitListener } from './limit-events.js';
import type { Limits } from './limits-config.js';

/**
 * The tickets one FindGames stream has waiting. The transport adds a ticket on `find` and removes
 * it when the ticket ends (assigned, cancelled, failed), so a single stream cannot hold the
 * whole matchmaker.
 */
export class StreamTickets {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly limits: Pick<Limits, 'maxTicketsInFlightPerStream'>,
    private readonly peer: string,
    private readonly onLimit: LimitListener = () => {},
  ) {}

  add(ticketId: string): void {
    if (this.inFlight.has(ticketId)) return;
    if (this.inFlight.size >= this.limits.maxTicketsInFlightPerStream) {
      this.onLimit({ limit: 'maxTicketsInFlightPerStream', peer: this.peer });
      throw resourceExhausted(`limit maxTicketsInFlightPerStream: ${this.limits.maxTicketsInFlightPerStream} tickets already waiting on this stream`);
    }
    this.inFlight.add(ticketId);
  }

  remove(ticketId: string): void {
    this.inFlight.delete(ticketId);
  }

  get size(): number {
    return this.inFlight.size;
  }
}

/** When a stream last saw a message either way; past the timeout the transport closes it. */
export class IdleClock {
  private lastMs: number;

  constructor(
    private readonly timeoutMs: number,
    nowMs: number,
  ) {
    this.lastMs = nowMs;
  }

  touch(nowMs: number): void {
    this.lastMs = Math.max(this.lastMs, nowMs);
  }

  /** ms until the stream goes idle (≤ 0: it is idle now); the transport arms its timer with this. */
  remainingMs(nowMs: number): number {
    return this.lastMs + this.timeoutMs - nowMs;
  }

  isIdle(nowMs: number): boolean {
    return this.remainingMs(nowMs) <= 0;
  }
}

/** The status a stream closed for idleness ends with. */
export const idleRefusal = (timeoutMs: number) => resourceExhausted(`limit idleStreamTimeoutMs: no message for ${timeoutMs} ms, stream closed`);

/**
 * A decoded message's wire size against the limit. grpc-js enforces `grpc.max_receive_message_length`
 * itself (with its own RESOURCE_EXHAUSTED text); this names the limit for the size checks we do.
 */
export function checkMessageSize(bytes: number, limits: Pick<Limits, 'maxMessageBytes'>, peer: string, onLimit: LimitListener = () => {}): void {
  if (bytes > limits.maxMessageBytes) {
    onLimit({ limit: 'maxMessageBytes', peer });
    throw resourceExhausted(`limit maxMessageBytes: a message of ${bytes} bytes exceeds ${limits.maxMessageBytes}`);
  }
}
