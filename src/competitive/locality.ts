import type { CompetitiveConfig, CompetitiveTicket, GeoPoint, LocalityConfig } from './competitive-config.js';

/**
 * Locality (Destiny thesis, "Latency Evaluation", phase 1): before any ping is measured, the
 * geographical distance between a player and a region's servers is a good first guess of latency.
 * The thesis maps latitude/longitude to Cartesian points on a sphere; we take the great-circle
 * distance directly (haversine), which is what the chord approximates.
 */
const EARTH_RADIUS_KM = 6371;

export function greatCircleKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The prior latency (ms) from `at` to every region with a known location. */
export function latencyPrior(locality: LocalityConfig, at: GeoPoint): Map<string, number> {
  const prior = new Map<string, number>();
  for (const [region, where] of locality.regionLocations) {
    prior.set(region, locality.baseMs + locality.msPerKm * greatCircleKm(at, where));
  }
  return prior;
}

/**
 * The ticket the matcher should pool: measured pings win; with none, and a location and a
 * locality config, the latency prior stands in for them, so the latency caps of the expansion
 * schedule (which widen with waiting) apply to it like to a measured ticket.
 */
export function withLatencyPrior(config: CompetitiveConfig, ticket: CompetitiveTicket): CompetitiveTicket {
  if (ticket.latencyMs.size > 0 || ticket.location === undefined || config.locality === undefined) return ticket;
  if (config.regions.length === 0) return ticket;
  const prior = latencyPrior(config.locality, ticket.location);
  for (const region of prior.keys()) if (!config.regions.includes(region)) prior.delete(region);
  return prior.size === 0 ? ticket : { ...ticket, latencyMs: prior };
}
