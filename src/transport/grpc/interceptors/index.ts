import type { ServerInterceptor } from '@grpc/grpc-js';
import type { Log } from '../../../coordinator/ports.js';
import { callGates, type CallGate } from './call-gate.js';
import { hooksInterceptor, type CallConcern } from './call-hooks.js';
import { unaryDeadline } from './deadline.js';
import { requestLog, type CallRecord } from './request-log.js';

export type { CallGate, CallInfo } from './call-gate.js';
export type { CallConcern, CallHandle, CallHooks, CallStatus } from './call-hooks.js';
export type { CallRecord } from './request-log.js';
export { callGates, hooksInterceptor, requestLog, unaryDeadline };

/** Longest a unary call may take on the server. */
export const DEFAULT_UNARY_LIMIT_MS = 10_000;

export interface InterceptorChainOptions {
  readonly log: Log;
  readonly now: () => number;
  /** Authentication, roles, rate limits: run in order on every call's metadata (security issue). */
  readonly gates?: readonly CallGate[];
  /** Further concerns after the gates (request decoding, the drain's record of open streams). */
  readonly concerns?: readonly CallConcern[];
  /** Any further raw interceptors, innermost (closest to the handler). */
  readonly extra?: readonly ServerInterceptor[];
  readonly unaryLimitMs?: number;
  /** Every call's end, e.g. for a per-method metric. */
  readonly onCallEnded?: (record: CallRecord) => void;
}

/**
 * The one chain in front of every method of every service (grpc-js applies it to all of them):
 * the request log, which hears every call's end, refusals by the later links included; the
 * deadline; the gates (authentication, roles, rate limits); the further concerns; all as hooks of
 * one intercepting call (call-hooks.ts: an interceptor each kept ~0.5 KB per concern alive for a
 * waiting FindGame's life); then any raw interceptors; then the handler.
 */
export function interceptorChain(options: InterceptorChainOptions): ServerInterceptor[] {
  return [
    hooksInterceptor([
      requestLog(options.log, options.now, options.onCallEnded),
      unaryDeadline(options.unaryLimitMs ?? DEFAULT_UNARY_LIMIT_MS),
      callGates(options.gates ?? []),
      ...(options.concerns ?? []),
    ]),
    ...(options.extra ?? []),
  ];
}
