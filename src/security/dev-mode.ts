import { isIP } from 'node:net';

export interface BindRequest {
  /** The gRPC listen host, as given (no port). */
  readonly host: string;
  /** `security.tls` is configured. */
  readonly tls: boolean;
  /** `security.tokens` is configured. */
  readonly tokens?: boolean;
  /** `--insecure`: development mode, plaintext and no roles. */
  readonly insecure: boolean;
  /** `--allow-insecure-bind`: plaintext on a non-loopback address, knowingly. */
  readonly allowInsecureBind: boolean;
}

export type BindDecision =
  | { readonly kind: 'secure' }
  | { readonly kind: 'insecure'; readonly warning: string }
  | { readonly kind: 'refuse'; readonly reason: string };

/**
 * Start-up check: development mode is plaintext with every caller trusted, fine on
 * loopback, refused on a reachable address unless forced. Pure: the CLI logs and exits on it.
 */
export function decideBind(request: BindRequest): BindDecision {
  // Tokens without TLS would be bearer secrets in plaintext, and development mode checks none:
  // an operator who configured tokens expects them enforced, so starting anyway would mislead.
  if (request.tokens && !request.tls) return { kind: 'refuse', reason: TOKENS_WITHOUT_TLS };
  if (request.tls && request.insecure) return { kind: 'refuse', reason: '--insecure and security.tls are both given: remove one' };
  if (request.tls) return { kind: 'secure' };
  const warning =
    'INSECURE development mode: gRPC is plaintext and every caller is trusted (any client can say hello as any game server, cancel any ticket, drain the coordinator). Configure security.tls and security.tokens for anything but local development.';
  if (isLoopback(request.host)) return { kind: 'insecure', warning };
  if (request.allowInsecureBind) return { kind: 'insecure', warning: `${warning} Listening on ${request.host}, reachable from other machines (--allow-insecure-bind).` };
  return {
    kind: 'refuse',
    reason: `refusing to listen on ${request.host} without credentials: configure security.tls, listen on 127.0.0.1, or pass --allow-insecure-bind to accept plaintext on a reachable address`,
  };
}

/** 127.0.0.0/8, ::1, IPv4-mapped loopback, and the name localhost. Wildcards (0.0.0.0, ::) are not. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  if (isIP(v4) === 4) return v4.split('.')[0] === '127';
  if (isIP(h) === 6) return /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(h);
  return false;
}

/** Why `security.tokens` alone is refused at start (the CLI and an embedded process say the same). */
export const TOKENS_WITHOUT_TLS =
  'security.tokens is configured without security.tls: tokens would cross the network in plaintext and, without TLS, the coordinator runs in development mode where no token is checked. Configure security.tls too, or remove security.tokens for local development.';
