import { status } from '@grpc/grpc-js';

/** Connect's code names as gRPC codes. */
const CODES: Record<string, number> = {
  canceled: 1, unknown: 2, invalid_argument: 3, deadline_exceeded: 4, not_found: 5, already_exists: 6, permission_denied: 7, resource_exhausted: 8,
  failed_precondition: 9, aborted: 10, out_of_range: 11, unimplemented: 12, internal: 13, unavailable: 14, data_loss: 15, unauthenticated: 16,
};

export type HttpProtocol = 'connect' | 'grpc-web' | 'json';

/** What one call over the HTTP gateway answered: its messages (binary or JSON text) and its status. */
export interface HttpOutcome {
  readonly messages: Uint8Array[];
  readonly code: number;
  readonly details: string;
  readonly httpStatus: number;
  readonly headers: Headers;
}

export const envelope = (flags: number, payload: Uint8Array): Uint8Array => {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
};

function frames(body: Uint8Array): { flags: number; payload: Uint8Array }[] {
  const out: { flags: number; payload: Uint8Array }[] = [];
  for (let at = 0; at + 5 <= body.length; ) {
    const length = new DataView(body.buffer, body.byteOffset + at).getUint32(1);
    out.push({ flags: body[at]!, payload: body.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return out;
}

/**
 * One call over the gateway, as a Connect, gRPC-Web or JSON client makes it (the request given as
 * the protocol's message: binary, or JSON text), read to its end.
 */
export async function httpCall(
  base: string,
  path: string,
  request: Uint8Array | string,
  options: { protocol: HttpProtocol; streaming: boolean; headers?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal },
): Promise<HttpOutcome> {
  const body = typeof request === 'string' ? new TextEncoder().encode(request) : request;
  const json = options.protocol === 'json';
  const contentType =
    options.protocol === 'grpc-web' ? 'application/grpc-web+proto' : json ? 'application/json' : options.streaming ? 'application/connect+proto' : 'application/proto';
  const framed = options.protocol === 'grpc-web' || (options.protocol === 'connect' && options.streaming);
  const headers: Record<string, string> = { 'content-type': contentType, ...options.headers };
  if (options.timeoutMs !== undefined) {
    if (options.protocol === 'grpc-web') headers['grpc-timeout'] = `${options.timeoutMs}m`;
    else headers['connect-timeout-ms'] = String(options.timeoutMs);
  }
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: (framed ? envelope(0, body) : body) as Uint8Array<ArrayBuffer>, ...(options.signal && { signal: options.signal }) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = () => new TextDecoder().decode(bytes);
  const errorOf = (e: { code?: string; message?: string }) => ({ code: CODES[e.code ?? ''] ?? status.UNKNOWN, details: e.message ?? '' });
  const base_ = { httpStatus: response.status, headers: response.headers };
  if (response.headers.get('content-type') === 'application/json' && response.status !== 200) return { ...base_, messages: [], ...errorOf(JSON.parse(text())) };
  if (options.protocol === 'json') {
    if (!options.streaming) return { ...base_, messages: [bytes], code: status.OK, details: '' };
    const lines = text().split('\n').filter((l) => l !== '');
    const last = lines.length > 0 ? (JSON.parse(lines[lines.length - 1]!) as { error?: { code?: string; message?: string } }) : {};
    if (last.error) return { ...base_, messages: lines.slice(0, -1).map((l) => new TextEncoder().encode(l)), ...errorOf(last.error) };
    return { ...base_, messages: lines.map((l) => new TextEncoder().encode(l)), code: status.OK, details: '' };
  }
  if (!framed) return { ...base_, messages: [bytes], code: status.OK, details: '' };
  const all = frames(bytes);
  const messages = all.filter((f) => (f.flags & 0x82) === 0).map((f) => f.payload);
  const end = all.find((f) => (f.flags & 0x82) !== 0);
  if (!end) return { ...base_, messages, code: -1, details: 'no end of stream' };
  const endText = new TextDecoder().decode(end.payload);
  if (options.protocol === 'grpc-web') {
    const trailers = Object.fromEntries(endText.split('\r\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));
    return { ...base_, messages, code: Number(trailers['grpc-status']), details: decodeURIComponent(trailers['grpc-message'] ?? '') };
  }
  const last = JSON.parse(endText) as { error?: { code?: string; message?: string } };
  return { ...base_, messages, ...(last.error ? errorOf(last.error) : { code: status.OK, details: '' }) };
}
