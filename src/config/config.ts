import type { ValueKey } from '../attributes/attribute-value.js';
import type { CompetitiveConfig } from '../competitive/index.js';
import type { LadderConfig } from '../ratings/rating-system.js';
import type { Limits } from '../security/limits/limits-config.js';
import type { SecuritySettings } from '../security/security-config.js';

/** The validated, normalised configuration the coordinator runs on. Plain data. */
export interface CoordinatorConfig {
  readonly templates: readonly FactoryTemplate[];
  readonly placement: PlacementSettings;
  readonly servers: { readonly keepaliveIntervalMs: number; readonly unknownAttributes?: 'refuse' | 'warn' };
  readonly grpc: GrpcSettings;
  /** The HTTP gateway's settings; optional so configs built in code need not give them (no origin allowed). */
  readonly http?: HttpSettings;
  /** Rating ladders by name; loading always fills it (empty when none is configured). */
  readonly ladders?: ReadonlyMap<string, LadderConfig>;
  /** Issue 14; optional so configs built in code (tests) need not give them. */
  readonly security?: SecuritySettings;
  readonly limits?: Limits;
}

/** The gRPC server's connection settings (factories.yaml `grpc`). */
export interface GrpcSettings {
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
}

/** The HTTP gateway's settings (factories.yaml `http`). */
export interface HttpSettings {
  /** Origins whose pages may call the coordinator from a browser; "*" any; none by default. */
  readonly corsOrigins: readonly string[];
}

export interface PlacementSettings {
  readonly policy: 'fill' | 'spread';
  readonly createTimeoutMs: number;
  readonly maxQueuedPerFactory: number;
  /** Competitive tickets waiting in one factory's pool for a batch; optional for configs built in code (default 100,000). */
  readonly maxPooledPerFactory?: number;
  readonly ticketTtlMs: number;
  /** See schema.ts; optional for configs built in code (default DEFAULT_STORE_IN_FLIGHT_AFTER_MS). */
  readonly storeInFlightAfterMs?: number;
}

/**
 * How long a creation may wait for its server's confirmation before its tickets are stored with
 * where it was sent: a confirmation within it (p99 93 ms in the batched bench, 16 ms one call a
 * ticket) means the tickets are never written (perf/PROFILE.md, "What storing a creation in flight costs").
 */
export const DEFAULT_STORE_IN_FLIGHT_AFTER_MS = 100;

/** One entry of factories.yaml: a factory per combination of its axes' values. */
export interface FactoryTemplate {
  readonly name: string;
  /** In declared order; factory names list them in this order. */
  readonly axes: readonly PartitionAxis[];
  readonly matchableKeys: readonly string[];
  readonly strategy: Strategy;
  /** Competitive only: the ladder whose ratings stand in for a missing ticket score. */
  readonly ladder?: string;
  /** Competitive only: a ready check before each game is created (see src/coordinator/acceptance). */
  readonly acceptance?: AcceptanceSettings;
  /** Competitive only: a match-function service that proposes games (see src/coordinator/match-functions). */
  readonly matchFunction?: MatchFunctionSettings;
}

export interface AcceptanceSettings {
  /** How long every party of a proposed game has to accept it. */
  readonly timeoutMs: number;
}

export interface MatchFunctionSettings {
  /** host:port of the MatchFunction service. */
  readonly address: string;
  /** How long a batch's answer may take, on the core's clock, before the built-in matcher forms it. */
  readonly timeoutMs: number;
  /** Most candidate tickets in one request. */
  readonly maxTickets: number;
}

export interface PartitionAxis {
  readonly key: string;
  /** Allowed values in declared order. */
  readonly values: readonly ValueKey[];
}

export type Strategy =
  | { readonly kind: 'cooperative'; readonly settings: CooperativeSettings }
  | { readonly kind: 'competitive'; readonly settings: CompetitiveSettings };

export interface CooperativeSettings {
  readonly maxPlayers: number;
  readonly order: 'fill' | 'spread';
  readonly reservationMs: number;
}

/** A competitive template's settings are exactly what its matcher is built from. */
export type CompetitiveSettings = CompetitiveConfig;

/** Most players one game of this template holds. */
export function playersPerGame(strategy: Strategy): number {
  return strategy.kind === 'cooperative'
    ? strategy.settings.maxPlayers
    : strategy.settings.teams * strategy.settings.teamSize;
}
