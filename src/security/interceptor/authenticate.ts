import type { Metadata } from '@grpc/grpc-js';
import { unauthenticated } from '../errors.js';
import { gameServerPrincipal, type AuthContext } from '../credentials/peer-identity.js';
import type { TlsSettings } from '../security-config.js';
import { mergePlayerPrincipals, type Principal } from '../tokens/principal.js';
import { bearerTokens, type TokenVerifier } from '../tokens/token-verifier.js';

/** At most this many bearer tokens on one call (a party of 16 sends one per member). */
const MAX_TOKENS = 16;

/**
 * Who is calling: bearer token(s) when sent, else the verified client certificate, else nobody
 * (undefined; the policy then answers UNAUTHENTICATED for methods that need someone).
 */
export async function authenticate(
  metadata: Metadata,
  auth: AuthContext | null,
  tokens: TokenVerifier | undefined,
  serverIdentity: TlsSettings['serverIdentity'],
): Promise<Principal | undefined> {
  const values = metadata.get('authorization').filter((v): v is string => typeof v === 'string');
  const bearer = bearerTokens(values);
  if (values.length > 0 && bearer.length === 0) throw unauthenticated('authorization: expected "Bearer <token>"');
  if (bearer.length > 0) {
    if (!tokens) throw unauthenticated('authorization: this coordinator accepts no tokens (security.tokens is not configured)');
    if (bearer.length > MAX_TOKENS) throw unauthenticated(`authorization: at most ${MAX_TOKENS} tokens`);
    const principals = await Promise.all(bearer.map((t) => tokens.verify(t)));
    if (principals.length === 1) return principals[0];
    const merged = mergePlayerPrincipals(principals);
    if (!merged) throw unauthenticated('authorization: several tokens are only for a party of players (one per member)');
    return merged;
  }
  return gameServerPrincipal(auth, serverIdentity);
}
