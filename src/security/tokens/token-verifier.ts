import type { Principal } from './principal.js';

/**
 * Turns a bearer token into a verified principal, or throws a SecurityError (UNAUTHENTICATED)
 * naming what is wrong. A studio with its own identity service plugs in here instead of JWT.
 */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** `authorization: Bearer <token>`; several values for a party (one token per member). */
export function bearerTokens(authorizationValues: readonly string[]): string[] {
  const tokens: string[] = [];
  for (const value of authorizationValues) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
    if (match) tokens.push(match[1]!);
  }
  return tokens;
}
