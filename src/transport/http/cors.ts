/**
 * Cross-origin access for browsers, closed by default: a page may call the coordinator only from
 * an origin in `http.corsOrigins` (factories.yaml), `"*"` allowing any. A request whose Origin is
 * not allowed is refused outright (403), not only hidden from the page: a form or script on any
 * site could otherwise still send it. Clients that are not browsers send no Origin and are not
 * concerned.
 */
export interface CorsPolicy {
  /** undefined: no Origin (not a browser's cross-origin call); false: refused; else the headers to add. */
  headersFor(origin: string | undefined): Readonly<Record<string, string>> | false | undefined;
  /** A preflight's answer headers, or false when the origin is refused. */
  preflight(origin: string | undefined, requestedHeaders: string | undefined): Readonly<Record<string, string>> | false;
}

/** What a page may read of a reply: the gRPC-Web status, Connect's trailers, the retry hint. */
const EXPOSED = ['grpc-status', 'grpc-message', 'grpc-status-details-bin', 'retry-after-ms', 'trailer-retry-after-ms'].join(', ');
/** What a page may send: the protocols' own headers and the bearer token. */
const ALLOWED_HEADERS = ['content-type', 'authorization', 'connect-protocol-version', 'connect-timeout-ms', 'grpc-timeout', 'x-grpc-web', 'x-user-agent'].join(', ');

export function corsPolicy(origins: readonly string[]): CorsPolicy {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const allows = (origin: string) => any || allowed.has(origin);
  const base = (origin: string) => ({ 'access-control-allow-origin': any ? '*' : origin, vary: 'Origin' });
  return {
    headersFor(origin) {
      if (origin === undefined) return undefined;
      if (!allows(origin)) return false;
      return { ...base(origin), 'access-control-expose-headers': EXPOSED };
    },
    preflight(origin, requestedHeaders) {
      if (origin === undefined || !allows(origin)) return false;
      return {
        ...base(origin),
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': requestedHeaders ? `${ALLOWED_HEADERS}, ${requestedHeaders}` : ALLOWED_HEADERS,
        'access-control-max-age': '7200',
      };
    },
  };
}
