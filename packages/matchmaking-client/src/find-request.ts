import { wireAttributes, type PlainValue } from '@gamefactory/protocol/web';
import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';

/** One player of a party; the score matters to competitive factories only. */
export interface PartyMember {
  readonly playerId: string;
  /** Opaque skill score, higher is better; left out, a competitive factory uses its ladder's rating. */
  readonly score?: number;
}

/** What a party asks for. Only `party` is required. */
export interface FindRequest {
  /**
   * The idempotency key, chosen by the client (default: a random UUID). Sending the same id again,
   * to any node, resumes the same ticket.
   */
  readonly ticketId?: string;
  /** factories.yaml template `name`; may be left out when the config has only one. */
  readonly template?: string;
  /** 1..N players who play together: ids, or ids with scores. */
  readonly party: readonly (string | PartyMember)[];
  /** One value for every partitioning axis of the template: selects exactly one factory. */
  readonly partition?: Record<string, PlainValue>;
  /** Soft attributes to match; a key left out is a wildcard. */
  readonly matchable?: Record<string, PlainValue>;
  /** Competitive: measured round trip to each region, in milliseconds. */
  readonly latenciesMs?: Record<string, number>;
  readonly preferredMaps?: readonly string[];
  readonly vetoedMaps?: readonly string[];
  /** Competitive: where the party plays from, when it has no latencies. */
  readonly location?: { readonly latitude: number; readonly longitude: number };
  /** Competitive: soft preferences (e.g. language) the factory weighs; they never exclude a game. */
  readonly softAttributes?: Record<string, string>;
  /**
   * Competitive: the party's own wait budget in milliseconds (past it any score gap will do);
   * within the template's `playerLimits.waitBudgetMs`, else the find fails INVALID_ARGUMENT.
   */
  readonly waitBudgetMs?: number;
  /** Competitive: the party's own latency ceiling in milliseconds, within `playerLimits.maxLatencyMs`. */
  readonly maxLatencyMs?: number;
}

/**
 * Shared by every request that leaves the field out: the client keeps each waiting ticket's wire
 * request (to send it again on another node), and is only read from it (encoded), never written.
 */
const NONE: Record<string, never> = Object.freeze({});
const NO_NAMES: string[] = Object.freeze([]) as unknown as string[];

export function wireFindRequest(ticketId: string, request: FindRequest): FindGameRequest {
  return {
    ticketId,
    template: request.template ?? '',
    party: request.party.map((p) => (typeof p === 'string' ? { playerId: p } : { playerId: p.playerId, score: p.score })),
    partitionAttributes: request.partition === undefined ? NONE : wireAttributes(request.partition),
    matchableAttributes: request.matchable === undefined ? NONE : wireAttributes(request.matchable),
    latenciesMs: request.latenciesMs === undefined ? NONE : { ...request.latenciesMs },
    preferredMaps: request.preferredMaps === undefined || request.preferredMaps.length === 0 ? NO_NAMES : [...request.preferredMaps],
    vetoedMaps: request.vetoedMaps === undefined || request.vetoedMaps.length === 0 ? NO_NAMES : [...request.vetoedMaps],
    location: request.location && { latitude: request.location.latitude, longitude: request.location.longitude },
    softAttributes: request.softAttributes && { values: { ...request.softAttributes } },
    waitBudgetMs: request.waitBudgetMs,
    maxLatencyMs: request.maxLatencyMs,
  };
}
