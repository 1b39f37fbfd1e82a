import { status } from '@grpc/grpc-js';
import type { FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';

/**
 * One FindGame update as a person reads it (issue 10, defect 4): where the ticket stands,
 * then where to go. The wire's oneof never shows through.
 */
export function describeUpdate(update: FindGameUpdate): string {
  const u = update.update;
  switch (u?.$case) {
    case 'queued': {
      const q = u.value;
      if (q.position === 0) return `matching in ${q.factory}…`;
      const wait = q.estimatedWaitMs > 0 ? ` (about ${Math.max(1, Math.round(q.estimatedWaitMs / 1000))} s)` : '';
      return `queued at position ${q.position} in ${q.factory}${wait}`;
    }
    case 'assignment': {
      const a = u.value;
      const how = a.created ? 'matched into a new game' : 'matched into a running game';
      const extras = [a.map && `map ${a.map}`, a.region && `region ${a.region}`, a.map || a.region ? `team ${a.team}` : ''].filter(Boolean).join(', ');
      return [
        `${how} (${a.factory})`,
        `assigned: ${a.serverEndpoint}  game ${a.gameId}  token ${a.reservationToken}${extras ? `  ${extras}` : ''}`,
      ].join('\n');
    }
    case 'error':
      return `failed: ${status[u.value.code] ?? u.value.code}: ${u.value.message}`;
    default:
      return 'empty update';
  }
}

/** The same update as one line of JSON for scripts: `{"ticketId", "queued"|"assignment"|"error": {...}}`. */
export function updateAsJson(update: FindGameUpdate): string {
  const u = update.update;
  const body = u === undefined ? {} : { [u.$case]: u.value };
  return JSON.stringify({ ticketId: update.ticketId, ...body }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}
