import { status, type FindError, type TicketUpdate } from '@gamefactory/matchmaking-client';

/** One ticket update as a person reads it: where the ticket stands, then where to go. */
export function describeUpdate(update: TicketUpdate): string {
  switch (update.kind) {
    case 'queued': {
      if (update.position === 0) return `matching in ${update.factory}…`;
      const wait = update.estimatedWaitMs > 0 ? ` (about ${Math.max(1, Math.round(update.estimatedWaitMs / 1000))} s)` : '';
      return `queued at position ${update.position} in ${update.factory}${wait}`;
    }
    case 'proposed':
      return `match ${update.matchId} proposed in ${update.factory}: ${update.acceptedPlayers}/${update.players} accepted, ${Math.ceil(update.expiresInMs / 1000)} s to answer`;
    case 'resuming':
      return `node lost (${update.reason}); resuming on ${update.address} in ${update.delayMs} ms`;
    case 'assignment': {
      const a = update.assignment;
      const how = a.created ? 'matched into a new game' : 'matched into a running game';
      const extras = [a.map && `map ${a.map}`, a.region && `region ${a.region}`, a.map || a.region ? `team ${a.team}` : ''].filter(Boolean).join(', ');
      return [
        `${how} (${a.factory})`,
        `assigned: ${a.serverEndpoint}  game ${a.gameId}  token ${a.reservationToken}${extras ? `  ${extras}` : ''}`,
      ].join('\n');
    }
  }
}

export function describeFailure(error: FindError): string {
  return `failed: ${status[error.code] ?? error.code}: ${error.details}`;
}

/** The same update as one line of JSON for scripts: `{"ticketId", "queued"|"resuming"|"assignment": {...}}`. */
export function updateAsJson(ticketId: string, update: TicketUpdate): string {
  const { kind, ...body } = update;
  const value = update.kind === 'assignment' ? update.assignment : body;
  return JSON.stringify({ ticketId, [kind]: value });
}

export function failureAsJson(error: FindError): string {
  return JSON.stringify({ ticketId: error.ticketId, error: { code: error.code, message: error.details } });
}
