import { status, type ServiceDefinition } from '@grpc/grpc-js';
import type { CallConcern, CallHooks } from './interceptors/call-hooks.js';
import { countOversizeRefusals } from './oversize-refusal.js';

/**
 * A request whose bytes could not become a message. grpc-js answers a requestDeserialize that
 * throws with INTERNAL "Error deserializing request" before any interceptor or handler runs
 * (found by the fuzzer); a tolerant deserializer returns this instead, and
 * `requestDecoding` ends the call with the right code, naming the problem.
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
export function tolerantService<S extends ServiceDefinition>(service: S, maxMessageBytes: number, onLimit?: (limit: 'maxMessageBytes', peer: string) => void): S {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(service)) {
    const decode = method.requestDeserialize;
    const what = method.path.split('/').pop() ?? method.path;
    const requestDeserialize = (bytes: Buffer): unknown => {
      if (bytes.length > maxMessageBytes) {
        return new UndecodableRequest('RESOURCE_EXHAUSTED', `limit maxMessageBytes: a message of ${bytes.length} bytes exceeds ${maxMessageBytes}`, 'maxMessageBytes');
      }
      try {
        return decode(bytes);
      } catch (error) {
        return new UndecodableRequest('INVALID_ARGUMENT', `request: ${bytes.length} bytes are not a valid ${what} request (${(error as Error).message})`);
      }
    };
    // grpc-js refuses a frame over the same size before it reaches this deserializer.
    if (onLimit) countOversizeRefusals(requestDeserialize, (peer) => onLimit('maxMessageBytes', peer));
    wrapped[name] = { ...method, requestDeserialize };
  }
  return wrapped as S;
}

/** Ends a call whose request could not be decoded, before any later concern or the handler sees it. */
export function requestDecoding(onLimit?: (limit: 'maxMessageBytes', peer: string) => void): CallConcern {
  const hooks: CallHooks = {
    onMessage(message, call) {
      if (!(message instanceof UndecodableRequest)) return undefined;
      if (message.limit) onLimit?.(message.limit, call.peer());
      return { code: status[message.code], details: message.message };
    },
  };
  return () => hooks;
}
