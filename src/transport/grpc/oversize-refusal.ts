import { createRequire } from 'node:module';

/**
 * grpc-js refuses a request larger than its `grpc.max_receive_message_length` itself, from the
 * frame's length prefix and before buffering it ("Received message larger than max (N vs M)"),
 * and it sends that status from its innermost call, which no interceptor sees. The coordinator
 * sets that length to `limits.maxMessageBytes` (one setting, both directions), so this rewrites
 * those two refusals to name the setting, as the coordinator's own size refusals do. grpc-js has no
 * public hook for it: the patch wraps `BaseServerInterceptingCall.sendStatus`, and
 * test/transport/message-size-limit.test.ts fails if a grpc-js release moves or rewords it.
 */
export function nameSizeLimitInRefusals(): void {
  if (patched) return;
  const require = createRequire(import.meta.url);
  const module = require('@grpc/grpc-js/build/src/server-interceptors.js') as {
    BaseServerInterceptingCall?: { prototype: unknown };
  };
  const proto = module.BaseServerInterceptingCall?.prototype as
    | { sendStatus(this: RefusingCall, status: { code: number; details: string }): void }
    | undefined;
  if (!proto || typeof proto.sendStatus !== 'function') throw new Error('grpc-js: BaseServerInterceptingCall.sendStatus not found; the size refusal cannot name limits.maxMessageBytes');
  const send = proto.sendStatus;
  proto.sendStatus = function (this: RefusingCall, status) {
    const details = typeof status.details === 'string' ? namedSizeRefusal(status.details) : status.details;
    if (details !== status.details) {
      const listener = this.handler ? oversizeListeners.get(this.handler.deserialize as object) : undefined;
      listener?.(this.getPeer?.() ?? '');
    }
    return send.call(this, { ...status, details });
  };
  patched = true;
}

let patched = false;

/** What the patch reads of grpc-js's call: the method's registered handler, and the peer. */
interface RefusingCall {
  readonly handler?: { readonly deserialize: unknown };
  getPeer?(): string;
}

/**
 * Who counts a server's size refusals, by the request deserializer it registered (each server's
 * are its own closures, so several servers in one process count apart).
 */
const oversizeListeners = new WeakMap<object, (peer: string) => void>();

/** Counts grpc-js's size refusals of calls to the method that decodes with `deserialize`. */
export function countOversizeRefusals(deserialize: object, listener: (peer: string) => void): void {
  oversizeListeners.set(deserialize, listener);
}

/** grpc-js's wording of a request over its receive limit, as the coordinator words it. */
export function namedSizeRefusal(details: string): string {
  const larger = /^Received message larger than max \((\d+) vs (\d+)\)$/.exec(details);
  if (larger) return `limit maxMessageBytes: a message of ${larger[1]} bytes exceeds ${larger[2]}`;
  const inflated = /^Received message that decompresses to a size larger than (\d+)$/.exec(details);
  if (inflated) return `limit maxMessageBytes: a message decompresses to more than ${inflated[1]} bytes`;
  return details;
}
