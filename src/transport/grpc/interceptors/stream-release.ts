import { ServerInterceptingCall, type ServerInterceptor } from '@grpc/grpc-js';
import type { Http2Stream } from 'node:http2';

/**
 * Every stream the server ends is closed at the HTTP/2 level too, so nothing it sent or would not
 * read holds the connection. grpc-js pauses a stream after each message it reads and resumes only
 * on the next read; a stream ended mid-request (a refused message, a limit) keeps the data the
 * client already sent buffered and unacknowledged, and enough such streams exhaust the session's
 * memory (Node then refuses new streams with ENHANCE_YOUR_CALM) or its flow-control window, so
 * healthy neighbours on the same connection stall. So once the status is given, whatever the
 * client still sends is read and dropped. (Resetting the stream as well, RFC 9113 §8.1, made
 * grpc-js clients sharing the connection fail with "Session closed with error code 2" in the
 * 10^5-case fuzz run; not done.)
 *
 * Must be the first interceptor of the chain: grpc-js hands the first one its base call, whose
 * `stream` is the HTTP/2 stream (not a public API; checked, and skipped when absent).
 */
export function streamReleaseInterceptor(): ServerInterceptor {
  return (method, call) => {
    if (!method.requestStream) return new ServerInterceptingCall(call);
    const stream = (call as unknown as { stream?: Http2Stream }).stream;
    if (!stream || typeof stream.close !== 'function') return new ServerInterceptingCall(call);
    return new ServerInterceptingCall(call, {
      sendStatus: (status, next) => {
        next(status);
        releaseAfterStatus(stream);
      },
    });
  };
}

function releaseAfterStatus(stream: Http2Stream): void {
  // Read (and so acknowledge) whatever the client still sends: grpc-js drops it once the call is
  // over, and the connection's window is returned at once instead of when the stream closes.
  setImmediate(() => {
    if (!stream.closed && !stream.destroyed) stream.resume();
  });
}
