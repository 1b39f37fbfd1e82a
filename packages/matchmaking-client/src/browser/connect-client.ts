import type { CallError } from '../find-game-calls.js';
import { Code } from '../status-code.js';

/** Connect's code names (https://connectrpc.com/docs/protocol#error-codes) as gRPC codes. */
const CODES: Record<string, number> = {
  canceled: Code.CANCELLED,
  unknown: Code.UNKNOWN,
  invalid_argument: Code.INVALID_ARGUMENT,
  deadline_exceeded: Code.DEADLINE_EXCEEDED,
  not_found: Code.NOT_FOUND,
  already_exists: Code.ALREADY_EXISTS,
  permission_denied: Code.PERMISSION_DENIED,
  resource_exhausted: Code.RESOURCE_EXHAUSTED,
  failed_precondition: Code.FAILED_PRECONDITION,
  aborted: Code.ABORTED,
  out_of_range: Code.OUT_OF_RANGE,
  unimplemented: Code.UNIMPLEMENTED,
  internal: Code.INTERNAL,
  unavailable: Code.UNAVAILABLE,
  data_loss: Code.DATA_LOSS,
  unauthenticated: Code.UNAUTHENTICATED,
};

/** Metadata as Connect sends it (`{"retry-after-ms": ["1000"]}`, or headers), read as the Node client reads grpc-js'. */
function metadataOf(entries: Iterable<readonly [string, string]>): CallError['metadata'] {
  const map = new Map<string, string[]>();
  for (const [key, value] of entries) map.set(key.toLowerCase().replace(/^trailer-/, ''), [...(map.get(key) ?? []), value]);
  return { get: (key) => map.get(key) ?? [] };
}

/** A Connect error (`{"code": "not_found", "message": "..."}`) as the gRPC status the coordinator sent. */
function errorOf(json: unknown, metadata: CallError['metadata']): CallError {
  const error = (json ?? {}) as { code?: string; message?: string };
  return { code: CODES[error.code ?? ''] ?? Code.UNKNOWN, details: error.message ?? '', ...(metadata && { metadata }) };
}

const envelope = (flags: number, payload: Uint8Array): Uint8Array => {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
};

/** A failure to reach the node (refused, reset, offline): the ticket may resume elsewhere. */
const unreachable = (error: unknown): CallError => ({ code: Code.UNAVAILABLE, details: `the coordinator could not be reached (${error instanceof Error ? error.message : String(error)})` });

export interface ConnectCallOptions {
  readonly headers: Record<string, string>;
  readonly signal?: AbortSignal;
  readonly fetch: typeof fetch;
}

/**
 * A server-streaming call over the Connect protocol with fetch (binary messages): `onMessage` for
 * each reply, then the end (null: OK). https://connectrpc.com/docs/protocol#streaming-rpcs
 */
export async function connectServerStream(url: string, request: Uint8Array, options: ConnectCallOptions, onMessage: (bytes: Uint8Array) => void): Promise<CallError | null> {
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/connect+proto', 'connect-protocol-version': '1' },
      body: envelope(0, request) as Uint8Array<ArrayBuffer>,
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    return options.signal?.aborted ? { code: Code.CANCELLED, details: 'cancelled on the client' } : unreachable(error);
  }
  if (response.status !== 200 || !response.body) return errorOf(await response.json().catch(() => ({ code: httpCode(response.status), message: response.statusText })), metadataOf(response.headers));
  const reader = response.body.getReader();
  let pending = new Uint8Array(0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { code: Code.UNAVAILABLE, details: 'the stream ended without its end message' };
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      pending = joined;
      while (pending.length >= 5) {
        const length = new DataView(pending.buffer, pending.byteOffset).getUint32(1);
        if (pending.length < 5 + length) break;
        const flags = pending[0]!;
        const payload = pending.slice(5, 5 + length);
        pending = pending.slice(5 + length);
        if ((flags & 2) === 0) {
          onMessage(payload);
          continue;
        }
        const end = JSON.parse(new TextDecoder().decode(payload)) as { error?: unknown; metadata?: Record<string, string[]> };
        const trailers = Object.entries(end.metadata ?? {}).flatMap(([k, vs]) => vs.map((v) => [k, v] as const));
        return end.error ? errorOf(end.error, metadataOf(trailers)) : null;
      }
    }
  } catch (error) {
    return options.signal?.aborted ? { code: Code.CANCELLED, details: 'cancelled on the client' } : unreachable(error);
  }
}

/** A unary call over the Connect protocol with fetch (binary messages): the reply's bytes, or the error. */
export async function connectUnary(url: string, request: Uint8Array, options: ConnectCallOptions): Promise<Uint8Array | CallError> {
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/proto', 'connect-protocol-version': '1' },
      body: request as Uint8Array<ArrayBuffer>,
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    return unreachable(error);
  }
  if (response.status !== 200) return errorOf(await response.json().catch(() => ({ code: httpCode(response.status), message: response.statusText })), metadataOf(response.headers));
  return new Uint8Array(await response.arrayBuffer());
}

/** The code of an HTTP error that came without a Connect body (a proxy's): Connect's table read backwards. */
function httpCode(httpStatus: number): string {
  switch (httpStatus) {
    case 400:
      return 'invalid_argument';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission_denied';
    case 404:
      return 'unimplemented';
    case 429:
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return 'unknown';
  }
}
