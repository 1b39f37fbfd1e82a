/**
 * Who is calling, once verified: a game server by its client certificate, players, gateways and
 * admins by signed tokens. `subject` is the stable id a ticket's ownership is kept under.
 */
export type Role = 'gameServer' | 'player' | 'gateway' | 'admin';

export interface Principal {
  readonly role: Role;
  /** Token `sub`, or the certificate identity for a game server. */
  readonly subject: string;
  /** player: the player ids this caller may find and cancel for. */
  readonly playerIds?: readonly string[];
  /** player: a signed party claim; every member listed may be queued together by this caller. */
  readonly partyClaim?: PartyClaim;
  /** gameServer: the id its hello must carry (from the verified client certificate). */
  readonly serverId?: string;
}

export interface PartyClaim {
  readonly partyId: string;
  readonly members: readonly string[];
}

/** Development mode (`--insecure`): no credentials, every call allowed, as before security existed. */
export const ANONYMOUS: Principal = Object.freeze({ role: 'admin', subject: 'anonymous (insecure mode)' });

/**
 * A party sends one token per member (or one with a party claim): their union is one player
 * principal. Only player principals merge; the first one's subject owns the ticket.
 */
export function mergePlayerPrincipals(principals: readonly Principal[]): Principal | undefined {
  if (principals.length === 0 || principals.some((p) => p.role !== 'player')) return undefined;
  const ids = new Set<string>();
  for (const p of principals) for (const id of allowedPlayers(p)) ids.add(id);
  return { role: 'player', subject: principals[0]!.subject, playerIds: [...ids] };
}

/** Every player id a player principal may act for: its own ids plus its party claim's members. */
export function allowedPlayers(principal: Principal): ReadonlySet<string> {
  return new Set([...(principal.playerIds ?? []), ...(principal.partyClaim?.members ?? [])]);
}
