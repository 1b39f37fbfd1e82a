import { SignJWT, type JWTPayload } from 'jose';

export const ISSUER = 'https://auth.example.test';
export const AUDIENCE = 'gamefactory';
export const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
export const NOW = Date.UTC(2026, 0, 1);

/** A signed test token; `expiresIn` in seconds from NOW. */
export function mint(
  claims: JWTPayload,
  key: Uint8Array | CryptoKey | import('node:crypto').KeyObject = new TextEncoder().encode(SECRET),
  opts: { alg?: string; expiresIn?: number; issuer?: string; audience?: string; kid?: string } = {},
): Promise<string> {
  const iat = Math.floor(NOW / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? 'HS256', ...(opts.kid ? { kid: opts.kid } : {}) })
    .setIssuedAt(iat)
    .setIssuer(opts.issuer ?? ISSUER)
    .setAudience(opts.audience ?? AUDIENCE)
    .setExpirationTime(iat + (opts.expiresIn ?? 300))
    .sign(key);
}
