import { ServerInterceptingCall, type ServerInterceptor } from '@grpc/grpc-js';
import { constants, type Http2Stream } from 'node:http2';

/** How long a stream that was given its status may take to deliver it before it is reset. */
export const STATUS_DELIVERY_GRACE_MS = 1000;

/**
 * Every stream the server ends is closed at the HTTP/2 level too, so nothing it sent or would not
 * read holds the connection. grpc-js pauses a stream after each message it reads and resumes only
 * on the next read; a stream ended mid-request (a refused message, a limit) keeps the data the
 * client already sent buffered and unacknowledged, and enough such streams exhaust the session's
 * memory (Node then refuses new streams with ENHANCE_YOUR_CALM) or its flow-control window, so
 * healthy neighbours on the same connection stall. So once the status is given, whatever the
 * client still sends is read and dropped, and a stream still open after the grace is reset: with
 * NO_ERROR when its status went out (RFC 9113 §8.1: a server that has sent a complete response may
 * ask the client to stop sending), else with ENHANCE_YOUR_CALM (the status is stuck behind replies
 * the peer does not read), which gRPC clients report as RESOURCE_EXHAUSTED; its buffers are freed.
 *
 * Must be the first interceptor of the chain: grpc-js hands the first one its base call, whose
 * `stream` is the HTTP/2 stream (not a public API; checked, and skipped when absent).
 */
export function streamReleaseInterceptor(graceMs = STATUS_DELIVERY_GRACE_MS): ServerInterceptor {
  return (method, call) => {
    if (!method.requestStream) return new ServerInterceptingCall(call);
    const stream = (call as unknown as { stream?: Http2Stream }).stream;
    if (!stream || typeof stream.close !== 'function') return new ServerInterceptingCall(call);
    return new ServerInterceptingCall(call, {
      sendStatus: (status, next) => {
        next(status);
        releaseAfterStatus(stream, graceMs);
      },
    });
  };
}

function releaseAfterStatus(stream: Http2Stream, graceMs: number): void {
  if (stream.closed || stream.destroyed) return;
  // The status went out: as trailers, or in the headers of a trailers-only answer.
  const delivered = () => stream.sentTrailers?.['grpc-status'] !== undefined || stream.sentHeaders?.['grpc-status'] !== undefined;
  // Read (and so acknowledge) whatever the client still sends: grpc-js drops it once the call is
  // over, and the connection's window is returned at once instead of when the stream closes.
  setImmediate(() => {
    if (!stream.closed && !stream.destroyed) stream.resume();
  });
  // A client that got its status closes its side; one that does not (or cannot read the status
  // behind replies it left unread) is reset once the grace is over.
  const timer = setTimeout(() => {
    if (stream.closed || stream.destroyed) return;
    stream.close(delivered() ? constants.NGHTTP2_NO_ERROR : constants.NGHTTP2_ENHANCE_YOUR_CALM);
  }, graceMs);
  timer.unref();
  stream.once('close', () => clearTimeout(timer));
}
