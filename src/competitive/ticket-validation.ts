import type { CompetitiveConfig, CompetitiveTicket } from './competitive-config.js';

/**
 * Pure validation of one ticket against a factory's config. Returns an error message that names
 * the offending field with the wire names of proto/gamefactory/v1/matchmaker.proto (so the
 * transport can pass it to the client as is), or undefined when the ticket is acceptable.
 * Cost is in the size of the ticket, never in the size of the pool.
 */
export function validateTicket(config: CompetitiveConfig, ticket: CompetitiveTicket): string | undefined {
  if (ticket.ticketId.length === 0) return 'ticket_id: must not be empty';
  const party = ticket.players;
  if (party.length === 0) return 'party: must have at least one player';
  if (party.length > config.teamSize) {
    return `party: ${party.length} players do not fit a team of ${config.teamSize}`;
  }
  for (const [i, player] of party.entries()) {
    if (player.playerId.length === 0) return `party[${i}].player_id: must not be empty`;
    // A party is at most one team, so a quadratic scan is cheaper than building a set per ticket.
    const earlier = party.findIndex((other) => other.playerId === player.playerId);
    if (earlier < i) return `party[${i}].player_id: same player as party[${earlier}]`;
    if (!Number.isFinite(player.score)) return `party[${i}].score: must be a finite number`;
  }
  if (!Number.isFinite(ticket.enqueuedAt)) return 'enqueued_at: must be a finite number';

  // With no regions configured latency is ignored altogether, so measurements are not checked.
  if (config.regions.length > 0) {
    for (const [region, ms] of ticket.latencyMs) {
      if (!config.regions.includes(region)) return `latencies_ms[${region}]: unknown region`;
      if (!(Number.isFinite(ms) && ms >= 0)) return `latencies_ms[${region}]: must be a non-negative finite number`;
    }
  }

  for (const [i, map] of ticket.preferredMaps.entries()) {
    if (!config.maps.includes(map)) return `preferred_maps[${i}]: unknown map`;
    if (ticket.vetoedMaps.includes(map)) return `preferred_maps[${i}]: ${map} is also vetoed`;
  }
  for (const [i, map] of ticket.vetoedMaps.entries()) {
    if (!config.maps.includes(map)) return `vetoed_maps[${i}]: unknown map`;
  }
  // "There are always more maps possible than can be vetoed" (Battle.net talk, "StarCraft II"):
  // a party that vetoes every map could never be matched, so it is refused up front.
  if (config.maps.length > 0 && config.maps.every((map) => ticket.vetoedMaps.includes(map))) {
    return 'vetoed_maps: every map is vetoed';
  }
  return undefined;
}
