import type { ServerInterceptor } from '@grpc/grpc-js';
import type { Log } from '../../../coordinator/ports.js';
import { gateInterceptor, type CallGate } from './call-gate.js';
import { deadlineInterceptor } from './deadline.js';
import { requestLogInterceptor, type CallRecord } from './request-log.js';

export type { CallGate, CallInfo } from './call-gate.js';
export type { CallRecord } from './request-log.js';
export { gateInterceptor, deadlineInterceptor, requestLogInterceptor };

/** Longest a unary call may take on the server. */
export const DEFAULT_UNARY_LIMIT_MS = 10_000;

export interface InterceptorChainOptions {
  readonly log: Log;
  readonly now: () => number;
  /** Authentication, roles, rate limits: run in order on every call's metadata (security issue). */
  readonly gates?: readonly CallGate[];
  /** Any further raw interceptors, innermost (closest to the handler). */
  readonly extra?: readonly ServerInterceptor[];
  readonly unaryLimitMs?: number;
  /** Every call's end, e.g. for a per-method metric. */
  readonly onCallEnded?: (record: CallRecord) => void;
}

/**
 * The one chain in front of every method of every service (grpc-js applies it to all of them).
 * The first wraps the network side: the request log, so it sees every status, refusals by the
 * later links included; then the deadline; then the gates (authentication, roles, rate limits);
 * then any extra interceptors; then the handler.
 */
export function interceptorChain(options: InterceptorChainOptions): ServerInterceptor[] {
  return [
    requestLogInterceptor(options.log, options.now, options.onCallEnded),
    deadlineInterceptor(options.unaryLimitMs ?? DEFAULT_UNARY_LIMIT_MS),
    gateInterceptor(options.gates ?? []),
    ...(options.extra ?? []),
  ];
}
