import { status } from '@grpc/grpc-js';
import type { IncomingHttpHeaders } from 'node:http';
import type http2 from 'node:http2';
import { GatewayRefusal, type CallEnd } from './web-protocols.js';

/**
 * Request headers that are HTTP's or the web protocols' own, not the call's metadata: everything
 * else (authorization first) is passed to the gRPC server as metadata, as a gRPC client sends it.
 */
const NOT_METADATA = new Set([
  'host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', 'content-type', 'content-encoding',
  'accept', 'accept-encoding', 'accept-language', 'origin', 'referer', 'user-agent', 'cookie', 'cache-control', 'pragma', 'priority', 'dnt',
  'x-grpc-web', 'x-user-agent', 'grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding',
]);
const notMetadata = (name: string) => NOT_METADATA.has(name) || name.startsWith('connect-') || name.startsWith('sec-') || name.startsWith('access-control-') || name.startsWith(':');

export function forwardedMetadata(headers: IncomingHttpHeaders, timeout: string | undefined): http2.OutgoingHttpHeaders {
  const out: http2.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !notMetadata(name)) out[name] = value;
  if (timeout !== undefined) out['grpc-timeout'] = timeout;
  return out;
}

/** The call's deadline as gRPC's grpc-timeout: Connect's connect-timeout-ms, or gRPC-Web's own header. */
export function grpcTimeout(headers: IncomingHttpHeaders): string | undefined {
  const connect = headers['connect-timeout-ms'];
  if (connect !== undefined) {
    if (!/^\d{1,8}$/.test(connect as string)) throw new GatewayRefusal(status.INVALID_ARGUMENT, `connect-timeout-ms: "${String(connect)}" is not a whole number of milliseconds (at most 8 digits)`);
    return `${connect}m`;
  }
  const grpc = headers['grpc-timeout'];
  if (grpc === undefined) return undefined;
  if (!/^\d{1,8}[HMSmun]$/.test(grpc as string)) throw new GatewayRefusal(status.INVALID_ARGUMENT, `grpc-timeout: "${String(grpc)}" is not a gRPC timeout (digits and a unit)`);
  return grpc as string;
}

/** gRPC's own reply headers, left out of the metadata passed to the HTTP client. */
const GRPC_HEADERS = new Set(['content-type', 'grpc-status', 'grpc-message', 'grpc-accept-encoding', 'grpc-encoding', 'grpc-status-details-bin', 'date']);

export function replyMetadata(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!name.startsWith(':') && !GRPC_HEADERS.has(name) && value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

/** A gRPC status from trailers (or a trailers-only reply), with the rest of them as trailing metadata. */
export function statusOf(trailers: http2.IncomingHttpHeaders): CallEnd {
  const code = Number(trailers['grpc-status']);
  const raw = String(trailers['grpc-message'] ?? '');
  let message = raw;
  try {
    message = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded as gRPC says: shown as it came.
  }
  return { code: Number.isInteger(code) ? code : status.UNKNOWN, message, trailers: replyMetadata(trailers) };
}
