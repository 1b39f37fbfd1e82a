import { status } from '@grpc/grpc-js';
import type { ServerResponse } from 'node:http';
import type { ServedMethod } from './served-methods.js';

/**
 * The HTTP forms of a call the gateway speaks, told apart by the request's content type:
 * - Connect unary (`application/proto`, `application/json`) for unary methods;
 * - Connect streaming (`application/connect+proto`, `application/connect+json`), enveloped messages
 *   and an end-of-stream message carrying the status;
 * - gRPC-Web (`application/grpc-web`, `+proto`, `+json`), gRPC's frames with the status in a
 *   trailer frame;
 * - JSON lines: `application/json` to a server-streaming method (curl, HTTP/1.1 clients that do not
 *   speak Connect): one JSON message per line, and a last `{"error": ...}` line if the call fails
 *   after its first message.
 * https://connectrpc.com/docs/protocol, https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md
 */
export type WebProtocol =
  | { readonly kind: 'connect-unary'; readonly json: boolean }
  | { readonly kind: 'connect-stream'; readonly json: boolean }
  | { readonly kind: 'grpc-web'; readonly json: boolean; readonly contentType: string }
  | { readonly kind: 'json-lines'; readonly json: true };

export function protocolOf(contentType: string | undefined, serverStreaming: boolean): WebProtocol | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  switch (type) {
    case 'application/proto':
      return serverStreaming ? undefined : { kind: 'connect-unary', json: false };
    case 'application/json':
      return serverStreaming ? { kind: 'json-lines', json: true } : { kind: 'connect-unary', json: true };
    case 'application/connect+proto':
      return { kind: 'connect-stream', json: false };
    case 'application/connect+json':
      return { kind: 'connect-stream', json: true };
    case 'application/grpc-web':
    case 'application/grpc-web+proto':
      return { kind: 'grpc-web', json: false, contentType: type };
    case 'application/grpc-web+json':
      return { kind: 'grpc-web', json: true, contentType: type };
    default:
      return undefined;
  }
}

/** How a call ended: its gRPC status code and message, and the trailing metadata (retry-after-ms...). */
export interface CallEnd {
  readonly code: status;
  readonly message: string;
  readonly trailers?: Readonly<Record<string, string>>;
}

/** A refusal of the gateway's own, before the gRPC server sees the call. */
export class GatewayRefusal extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

/** Connect's names for the gRPC codes (https://connectrpc.com/docs/protocol#error-codes). */
const CONNECT_CODES: Record<number, string> = {
  [status.CANCELLED]: 'canceled',
  [status.UNKNOWN]: 'unknown',
  [status.INVALID_ARGUMENT]: 'invalid_argument',
  [status.DEADLINE_EXCEEDED]: 'deadline_exceeded',
  [status.NOT_FOUND]: 'not_found',
  [status.ALREADY_EXISTS]: 'already_exists',
  [status.PERMISSION_DENIED]: 'permission_denied',
  [status.RESOURCE_EXHAUSTED]: 'resource_exhausted',
  [status.FAILED_PRECONDITION]: 'failed_precondition',
  [status.ABORTED]: 'aborted',
  [status.OUT_OF_RANGE]: 'out_of_range',
  [status.UNIMPLEMENTED]: 'unimplemented',
  [status.INTERNAL]: 'internal',
  [status.UNAVAILABLE]: 'unavailable',
  [status.DATA_LOSS]: 'data_loss',
  [status.UNAUTHENTICATED]: 'unauthenticated',
};

/** The HTTP status of a Connect unary error (the protocol's table). */
const HTTP_STATUS: Record<number, number> = {
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
  [status.UNAUTHENTICATED]: 401,
};

export const connectCode = (code: status): string => CONNECT_CODES[code] ?? 'unknown';

/** A Connect error body: `{"code": "invalid_argument", "message": "..."}`. */
export const connectError = (end: CallEnd): { code: string; message: string } => ({ code: connectCode(end.code), message: end.message });

/** An envelope (Connect) or frame (gRPC, gRPC-Web): flags, big-endian length, payload. */
export function envelope(flags: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  out[0] = flags;
  out.writeUInt32BE(payload.length, 1);
  out.set(payload, 5);
  return out;
}

/** The one message of a request body, in the protocol's form: binary, ready for the gRPC server. */
export function requestMessage(protocol: WebProtocol, body: Buffer, method: ServedMethod): Uint8Array {
  let payload: Buffer = body;
  if (protocol.kind === 'connect-stream' || protocol.kind === 'grpc-web') {
    if (body.length < 5) throw new GatewayRefusal(status.INVALID_ARGUMENT, `request: ${body.length} bytes are not an enveloped ${method.name} request (5-byte prefix and message)`);
    const length = body.readUInt32BE(1);
    if (body[0] !== 0) throw new GatewayRefusal(status.INVALID_ARGUMENT, `request: envelope flags ${body[0]}: compressed or end-of-stream messages are not accepted`);
    if (length !== body.length - 5) throw new GatewayRefusal(status.INVALID_ARGUMENT, `request: the envelope says ${length} bytes, ${body.length - 5} came; send exactly one ${method.name} request`);
    payload = body.subarray(5);
  }
  if (!protocol.json) return payload;
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch (error) {
    throw new GatewayRefusal(status.INVALID_ARGUMENT, `request: not JSON (${(error as Error).message})`);
  }
  try {
    return method.requestFromJson(json as Parameters<ServedMethod['requestFromJson']>[0]);
  } catch (error) {
    throw new GatewayRefusal(status.INVALID_ARGUMENT, `request: not a valid ${method.name} request in JSON (${(error as Error).message})`);
  }
}

/** gRPC's percent-encoding of a status message (PROTOCOL-HTTP2.md, "Status-Message"). */
export function percentEncode(text: string): string {
  return Buffer.from(text, 'utf8').reduce((out, byte) => out + (byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`), '');
}

/** What a call's reply goes through: leading metadata, messages as the gRPC server sent them, the end. */
export interface ReplyWriter {
  /** The reply's leading metadata (before any message). */
  begin(metadata: Readonly<Record<string, string>>): void;
  /** One reply message (binary); false when the client reads slower than it is written. */
  message(bytes: Uint8Array): boolean;
  end(end: CallEnd): void;
  /** True once the response has begun (its status line and headers are sent). */
  readonly committed: boolean;
}

/**
 * The writer for a call's reply in its protocol. `headers` go on every response (CORS). Headers
 * are sent with the first message or the end, so a call refused before answering gets a plain
 * error response (an HTTP status for Connect unary and JSON lines).
 */
export function replyWriter(protocol: WebProtocol, res: ServerResponse, method: ServedMethod | undefined, headers: Readonly<Record<string, string>>): ReplyWriter {
  let leading: Readonly<Record<string, string>> = {};
  let committed = false;
  const commit = (code: number, contentType: string, extra: Readonly<Record<string, string>> = {}) => {
    committed = true;
    res.writeHead(code, { ...headers, ...leading, ...extra, 'content-type': contentType });
  };
  const asJson = (bytes: Uint8Array): string => JSON.stringify(method!.replyToJson(bytes));
  const payload = (bytes: Uint8Array): Uint8Array => (protocol.json ? Buffer.from(asJson(bytes)) : bytes);
  const errorResponse = (end: CallEnd, extra: Readonly<Record<string, string>>) => {
    commit(HTTP_STATUS[end.code] ?? 500, 'application/json', extra);
    res.end(JSON.stringify(connectError(end)));
  };
  const prefixed = (trailers: Readonly<Record<string, string>> | undefined, prefix: string) =>
    Object.fromEntries(Object.entries(trailers ?? {}).map(([k, v]) => [`${prefix}${k}`, v]));

  switch (protocol.kind) {
    case 'connect-unary': {
      let reply: Uint8Array | undefined;
      return {
        begin: (m) => void (leading = m),
        message: (bytes) => ((reply = bytes), true),
        end(end) {
          if (committed) return;
          const trailers = prefixed(end.trailers, 'trailer-');
          if (end.code !== status.OK) return errorResponse(end, trailers);
          commit(200, protocol.json ? 'application/json' : 'application/proto', trailers);
          res.end(reply === undefined ? (protocol.json ? '{}' : '') : payload(reply));
        },
        get committed() {
          return committed;
        },
      };
    }
    case 'json-lines':
      return {
        begin: (m) => void (leading = m),
        message(bytes) {
          if (!committed) commit(200, 'application/x-ndjson');
          return res.write(`${asJson(bytes)}\n`);
        },
        end(end) {
          if (!committed) {
            if (end.code !== status.OK) return errorResponse(end, end.trailers ?? {});
            commit(200, 'application/x-ndjson');
          } else if (end.code !== status.OK) res.write(`${JSON.stringify({ error: connectError(end), ...(end.trailers && Object.keys(end.trailers).length > 0 && { metadata: end.trailers }) })}\n`);
          res.end();
        },
        get committed() {
          return committed;
        },
      };
    case 'connect-stream': {
      const contentType = protocol.json ? 'application/connect+json' : 'application/connect+proto';
      return {
        begin: (m) => void (leading = m),
        message(bytes) {
          if (!committed) commit(200, contentType);
          return res.write(envelope(0, payload(bytes)));
        },
        end(end) {
          if (!committed) commit(200, contentType);
          const metadata = Object.fromEntries(Object.entries(end.trailers ?? {}).map(([k, v]) => [k, [v]]));
          const last = { ...(end.code !== status.OK && { error: connectError(end) }), ...(Object.keys(metadata).length > 0 && { metadata }) };
          res.end(envelope(2, Buffer.from(JSON.stringify(last))));
        },
        get committed() {
          return committed;
        },
      };
    }
    case 'grpc-web':
      return {
        begin: (m) => void (leading = m),
        message(bytes) {
          if (!committed) commit(200, protocol.contentType);
          return res.write(envelope(0, payload(bytes)));
        },
        end(end) {
          if (!committed) commit(200, protocol.contentType);
          const lines = [`grpc-status:${end.code}`, `grpc-message:${percentEncode(end.message)}`, ...Object.entries(end.trailers ?? {}).map(([k, v]) => `${k}:${v}`)];
          res.end(envelope(0x80, Buffer.from(lines.map((l) => `${l}\r\n`).join(''))));
        },
        get committed() {
          return committed;
        },
      };
  }
}
