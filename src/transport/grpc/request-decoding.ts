import { ServerInterceptingCall, status, type ServerInterceptor, type ServiceDefinition } from '@grpc/grpc-js';

/**
 * A request whose bytes could not become a message. grpc-js answers a requestDeserialize that
 * throws with INTERNAL "Error deserializing request" before any interceptor or handler runs
 * (found by the fuzzer); a tolerant deserializer returns this instead, and
 * `requestDecodingInterceptor` ends the call with the right code, naming the problem.
 */
export class UndecodableRequest {
  constructor(
    readonly code: 'INVALID_ARGUMENT' | 'RESOURCE_EXHAUSTED',
    readonly message: string,
    /** Set when a limit refused it (counted by the caller). */
    readonly limit?: 'maxMessageBytes',
  ) {}
}

/**
 * The service definition with each method's requestDeserialize made tolerant: bytes over
 * `maxMessageBytes` (limits.maxMessageBytes) and bytes that are not the method's message become
 * an UndecodableRequest rather than an exception.
 */
export function tolerantService<S extends ServiceDefinition>(service: S, maxMessageBytes: number): S {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(service)) {
    const decode = method.requestDeserialize;
    const what = method.path.split('/').pop() ?? method.path;
    wrapped[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        if (bytes.length > maxMessageBytes) {
          return new UndecodableRequest('RESOURCE_EXHAUSTED', `limit maxMessageBytes: a message of ${bytes.length} bytes exceeds ${maxMessageBytes}`, 'maxMessageBytes');
        }
        try {
          return decode(bytes);
        } catch (error) {
          return new UndecodableRequest('INVALID_ARGUMENT', `request: ${bytes.length} bytes are not a valid ${what} request (${(error as Error).message})`);
        }
      },
    };
  }
  return wrapped as S;
}

/** Ends a call whose request could not be decoded, before any later interceptor or the handler sees it. */
export function requestDecodingInterceptor(onLimit?: (limit: 'maxMessageBytes', peer: string) => void): ServerInterceptor {
  return (_method, call) => {
    let ended = false;
    const intercepting: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message, nextMessage) => {
            if (ended) return;
            if (message instanceof UndecodableRequest) {
              ended = true;
              if (message.limit) onLimit?.(message.limit, call.getPeer());
              intercepting.sendStatus({ code: status[message.code], details: message.message });
              return;
            }
            nextMessage(message);
          },
        }),
      sendStatus: (s, next) => {
        ended = true;
        next(s);
      },
    });
    return intercepting;
  };
}
