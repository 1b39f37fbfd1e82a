import { status } from '@grpc/grpc-js';
import type { Log } from '../../../coordinator/ports.js';
import type { CallConcern } from './call-hooks.js';

/** One finished call, as the request log and any metric hooked to it see it. */
export interface CallRecord {
  readonly method: string;
  readonly peer: string;
  /** gRPC status code the call ended with. */
  readonly code: number;
  readonly details: string;
  readonly durationMs: number;
}

/**
 * Logs every call when it ends: method, peer, status and duration. Successful calls at debug,
 * refusals at info, INTERNAL/UNKNOWN (which the core should never produce) at warn. A call the
 * peer cancelled sends no status and is not logged.
 */
export function requestLog(log: Log, now: () => number, onCallEnded?: (record: CallRecord) => void): CallConcern {
  return (call) => {
    const started = now();
    return {
      onEnd(s) {
        if (!s) return;
        const record: CallRecord = { method: call.method.path, peer: call.peer(), code: s.code, details: s.details ?? '', durationMs: now() - started };
        const fields = { method: record.method, peer: record.peer, code: status[record.code], durationMs: record.durationMs };
        if (s.code === status.OK) log.debug(fields, 'grpc call');
        else if (s.code === status.INTERNAL || s.code === status.UNKNOWN) log.warn({ ...fields, details: record.details }, 'grpc call failed');
        else log.info({ ...fields, details: record.details }, 'grpc call refused');
        onCallEnded?.(record);
      },
    };
  };
}
