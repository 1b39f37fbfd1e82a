import { Metadata, status } from '@grpc/grpc-js';
import { MatchmakingError } from '../../errors/index.js';
import type { CallConcern, CallHandle, CallHooks } from './interceptors/call-hooks.js';
import type { CallGate } from './interceptors/index.js';

/** Health checks keep answering (NOT_SERVING) while the rest is refused. */
const isHealth = (path: string) => path.startsWith('/grpc.health.v1.Health/');

/**
 * The transport's half of a graceful drain: a gate that refuses new calls with
 * UNAVAILABLE once draining, and a record of the open streams so each can be ended with
 * UNAVAILABLE and a `retry-after-ms` hint (game servers reconnect elsewhere or after a restart;
 * players retry their ticket id and keep their place).
 */
export class CallDrain {
  private draining = false;
  private readonly streams = new Set<CallHandle>();

  constructor(private readonly retryAfterMs: number) {}

  get isDraining(): boolean {
    return this.draining;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  readonly gate: CallGate = (call) =>
    this.draining && !isHealth(call.method) ? new MatchmakingError('UNAVAILABLE', 'the coordinator is draining; retry', this.retryAfterMs) : undefined;

  /** Keeps every open stream (not health watches) until it ends. */
  readonly concern: CallConcern = (call) => {
    if (!call.streaming || isHealth(call.method.path)) return undefined;
    this.streams.add(call);
    return this.forgetOnEnd;
  };

  private readonly forgetOnEnd: CallHooks = { onEnd: (_status, call) => this.streams.delete(call) };

  /** From now on every new call but health is refused. */
  refuseNewCalls(): void {
    this.draining = true;
  }

  /** Ends every open stream with UNAVAILABLE and the retry hint; returns how many. */
  endStreams(): number {
    const open = [...this.streams];
    this.streams.clear();
    for (const stream of open) {
      const metadata = new Metadata();
      metadata.set('retry-after-ms', String(this.retryAfterMs));
      stream.end({ code: status.UNAVAILABLE, details: 'the coordinator is draining; reconnect and retry', metadata });
    }
    return open.length;
  }
}
