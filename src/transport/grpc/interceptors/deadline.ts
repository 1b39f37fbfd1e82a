import { status } from '@grpc/grpc-js';
import type { CallConcern } from './call-hooks.js';

/**
 * Unary calls get at most `unaryLimitMs` on the server, whatever deadline the client set (or
 * none): a call stuck behind a slow adapter ends with DEADLINE_EXCEEDED instead of holding its
 * resources. Streams live as long as their ticket or server connection; a deadline the client
 * sets on them is enforced by grpc-js itself.
 */
export function unaryDeadline(unaryLimitMs: number): CallConcern {
  return (call) => {
    if (call.streaming) return undefined;
    let timer: NodeJS.Timeout | undefined;
    return {
      onMetadata() {
        timer = setTimeout(() => call.end({ code: status.DEADLINE_EXCEEDED, details: `${call.method.path}: not answered within ${unaryLimitMs} ms` }), unaryLimitMs);
        timer.unref?.();
        return undefined;
      },
      onEnd() {
        if (timer) clearTimeout(timer);
      },
    };
  };
}
