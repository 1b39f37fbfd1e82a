import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status, type ServerInterceptor } from '@grpc/grpc-js';
import { passThrough } from './pass-through.js';

/**
 * Unary calls get at most `unaryLimitMs` on the server, whatever deadline the client set (or
 * none): a call stuck behind a slow adapter ends with DEADLINE_EXCEEDED instead of holding its
 * resources. Streams live as long as their ticket or server connection; a deadline the client
 * sets on them is enforced by grpc-js itself.
 */
export function deadlineInterceptor(unaryLimitMs: number): ServerInterceptor {
  return (method, call) => {
    if (method.requestStream || method.responseStream) return passThrough(call);
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const stop = () => {
      ended = true;
      if (timer) clearTimeout(timer);
    };
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        timer = setTimeout(() => {
          if (ended) return;
          ended = true;
          intercepting.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `${method.path}: not answered within ${unaryLimitMs} ms` });
        }, unaryLimitMs);
        timer.unref?.();
        next(metadata);
      })
      .withOnCancel(stop)
      .build();
    const responder = new ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendStatus((s, next) => {
        stop();
        next(s);
      })
      .build();
    const intercepting = new ServerInterceptingCall(call, responder);
    return intercepting;
  };
}
