import type { ServerCredentials, ServerInterceptor } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { tlsServerCredentials } from './credentials/tls-credentials.js';
import { securityInterceptor } from './interceptor/security-interceptor.js';
import type { LimitListener } from './limits/limit-events.js';
import { DEFAULT_LIMITS, type Limits } from './limits/limits-config.js';
import { PeerLimits } from './limits/peer-limits.js';
import type { SecuritySettings } from './security-config.js';
import { JwtTokenVerifier } from './tokens/jwt-verifier.js';
import type { TokenVerifier } from './tokens/token-verifier.js';

/** How often peers at rest are forgotten, so a flood of addresses leaves no memory behind. */
const SWEEP_MS = 60_000;

export class SecuritySetupError extends Error {
  override readonly name = 'SecuritySetupError';
}

/** security.tokens as a verifier: the HMAC secret from its environment variable, keys from their files. */
export function tokenVerifierFromConfig(settings: SecuritySettings['tokens'], env: NodeJS.ProcessEnv = process.env): TokenVerifier | undefined {
  if (!settings) return undefined;
  const secret = settings.hmacSecretEnv === undefined ? undefined : env[settings.hmacSecretEnv];
  if (settings.hmacSecretEnv !== undefined && (secret === undefined || secret.length < 32)) {
    throw new SecuritySetupError(`security.tokens.hmacSecretEnv: the environment variable ${settings.hmacSecretEnv} must hold a secret of at least 32 bytes`);
  }
  const read = (field: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new SecuritySetupError(`security.tokens.${field}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  };
  let jwks;
  if (settings.jwksFile !== undefined) {
    try {
      jwks = JSON.parse(read('jwksFile', settings.jwksFile));
    } catch (error) {
      if (error instanceof SecuritySetupError) throw error;
      throw new SecuritySetupError(`security.tokens.jwksFile: ${settings.jwksFile} is not JSON (${(error as Error).message})`);
    }
  }
  return new JwtTokenVerifier({
    issuer: settings.issuer,
    audience: settings.audience,
    hmacSecret: secret,
    publicKeyPem: settings.publicKeyFile === undefined ? undefined : read('publicKeyFile', settings.publicKeyFile),
    jwks,
    clockToleranceSeconds: settings.clockToleranceSeconds,
  });
}

export interface GrpcSecurity {
  /** TLS credentials following their files, or undefined for plaintext. */
  readonly credentials: ServerCredentials | undefined;
  readonly interceptor: ServerInterceptor;
  readonly tokens: TokenVerifier | undefined;
  readonly peerLimits: PeerLimits;
  stop(): void;
}

/**
 * Everything the gRPC server needs for security from factories.yaml `security:`/`limits:`:
 * credentials (hot reloaded), the token verifier, per-peer limits and the one interceptor that
 * applies authentication, roles and limits to every call. `insecure`: development mode (no
 * roles; limits still apply).
 */
export async function grpcSecurity(options: {
  readonly settings: SecuritySettings | undefined;
  readonly limits: Limits | undefined;
  readonly insecure: boolean;
  readonly onLimit: LimitListener;
  readonly now: () => number;
  readonly drainPath: string;
  /** A studio's own verifier instead of security.tokens. */
  readonly tokens?: TokenVerifier;
}): Promise<GrpcSecurity> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const tls = options.settings?.tls;
  const credentials = tls ? await tlsServerCredentials(tls) : undefined;
  const tokens = options.tokens ?? tokenVerifierFromConfig(options.settings?.tokens);
  const peerLimits = new PeerLimits(limits, options.onLimit);
  const sweep = setInterval(() => peerLimits.sweep(options.now()), SWEEP_MS);
  sweep.unref();
  const interceptor = securityInterceptor({
    insecure: options.insecure,
    tokens,
    serverIdentity: tls?.serverIdentity ?? { from: 'commonName', uriPrefix: '' },
    limits,
    peerLimits,
    onLimit: options.onLimit,
    now: options.now,
    drainPath: options.drainPath,
  });
  return { credentials, interceptor, tokens, peerLimits, stop: () => clearInterval(sweep) };
}
