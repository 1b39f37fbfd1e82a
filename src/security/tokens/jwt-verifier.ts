import { createPublicKey, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { unauthenticated } from '../errors.js';
import type { PartyClaim, Principal, Role } from './principal.js';
import type { TokenVerifier } from './token-verifier.js';

export interface JwtVerifierOptions {
  readonly issuer: string | readonly string[];
  readonly audience: string | readonly string[];
  /** HS256/384/512 shared secret (at least 32 bytes). */
  readonly hmacSecret?: string | Uint8Array;
  /** PEM public key (RSA, EC or Ed25519) for RS*, PS*, ES*, EdDSA tokens. */
  readonly publicKeyPem?: string;
  /** Or a key set, chosen by the token's `kid`. */
  readonly jwks?: JSONWebKeySet;
  /** Allowed `alg` values; by default the HS* family with a secret and common public-key ones with keys. */
  readonly algorithms?: readonly string[];
  readonly clockToleranceSeconds?: number;
  /** Injected clock (ms since epoch), so expiry is testable. */
  readonly now?: () => number;
}

const TOKEN_ROLES: readonly Role[] = ['player', 'gateway', 'admin'];
const HMAC_ALGS = ['HS256', 'HS384', 'HS512'];
const PUBLIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const MAX_TOKEN_CHARS = 8192;

/**
 * JWT bearer tokens verified with `jose`: signature (HMAC or public key), `exp` (required), `nbf`,
 * `iss` and `aud`. Claims: `sub`; `role` (player | gateway | admin); for players `player_ids`
 * (default [sub]) and an optional `party` { id, members }. Game servers authenticate by client
 * certificate, never by token.
 */
export class JwtTokenVerifier implements TokenVerifier {
  private readonly key: JWTVerifyGetKey;
  private readonly algorithms: string[];

  constructor(private readonly options: JwtVerifierOptions) {
    const secret = options.hmacSecret === undefined ? undefined : typeof options.hmacSecret === 'string' ? new TextEncoder().encode(options.hmacSecret) : options.hmacSecret;
    if (secret !== undefined && secret.length < 32) throw new Error('tokens.hmacSecret: use at least 32 bytes');
    const publicKey: KeyObject | undefined = options.publicKeyPem === undefined ? undefined : createPublicKey(options.publicKeyPem);
    const keySet = options.jwks === undefined ? undefined : createLocalJWKSet(options.jwks);
    if (!secret && !publicKey && !keySet) throw new Error('tokens: configure hmacSecret, publicKeyPem or jwks');
    this.algorithms = [...(options.algorithms ?? [...(secret ? HMAC_ALGS : []), ...(publicKey || keySet ? PUBLIC_ALGS : [])])];
    this.key = async (header, token) => {
      if (header.alg.startsWith('HS')) {
        if (!secret) throw unauthenticated(`token alg ${header.alg}: no HMAC secret is configured`);
        return secret;
      }
      if (keySet && (header.kid !== undefined || !publicKey)) return keySet(header, token);
      if (publicKey) return publicKey;
      throw unauthenticated(`token alg ${header.alg}: no public key is configured`);
    };
  }

  async verify(token: string): Promise<Principal> {
    if (token.length > MAX_TOKEN_CHARS) throw unauthenticated(`token: longer than ${MAX_TOKEN_CHARS} characters`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        issuer: this.options.issuer as string | string[],
        audience: this.options.audience as string | string[],
        algorithms: this.algorithms,
        clockTolerance: this.options.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp', 'sub'],
        ...(this.options.now ? { currentDate: new Date(this.options.now()) } : {}),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) throw unauthenticated(`token refused: ${error.message}`);
      throw error;
    }
    return principalFromClaims(payload);
  }
}

/** Pure: verified claims → principal, or UNAUTHENTICATED naming the bad claim. */
export function principalFromClaims(claims: JWTPayload): Principal {
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '') throw unauthenticated('token claim "sub": missing');
  const role = claims['role'];
  if (typeof role !== 'string' || !TOKEN_ROLES.includes(role as Role)) {
    throw unauthenticated(`token claim "role": must be one of ${TOKEN_ROLES.join(', ')}`);
  }
  if (role !== 'player') return { role: role as Role, subject };
  const playerIds = claims['player_ids'] === undefined ? [subject] : stringList(claims['player_ids'], 'player_ids');
  const party = claims['party'];
  let partyClaim: PartyClaim | undefined;
  if (party !== undefined) {
    const p = party as { id?: unknown; members?: unknown };
    if (typeof party !== 'object' || party === null || typeof p.id !== 'string') throw unauthenticated('token claim "party": needs an "id" string and "members"');
    partyClaim = { partyId: p.id, members: stringList(p.members, 'party.members') };
  }
  return { role: 'player', subject, playerIds, ...(partyClaim ? { partyClaim } : {}) };
}

function stringList(value: unknown, claim: string): string[] {
  if (!Array.isArray(value) || value.length > 64 || !value.every((v) => typeof v === 'string' && v !== '')) {
    throw unauthenticated(`token claim "${claim}": must be a list of at most 64 non-empty strings`);
  }
  return value as string[];
}
