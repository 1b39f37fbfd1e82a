import type { GeoPoint } from '../../competitive/index.js';
import type { SimPlayer } from '../population.js';

/** A ticket as every simulated matcher sees it: scores it may use, never the true skills. */
export interface QueuedTicket {
  readonly id: string;
  readonly players: readonly SimPlayer[];
  /** Matching score per player (true skill, or a rating system's score()), in players' order. */
  readonly playerScores: readonly number[];
  /** The party's mean matching score. */
  readonly score: number;
  /** A rating system's uncertainty() of the party (0 when scores are known). */
  readonly uncertainty: number;
  readonly enqueuedAt: number;
  /** Measured pings; empty when the ticket only says where it is. */
  readonly latencyMs: ReadonlyMap<string, number>;
  readonly location: GeoPoint;
  readonly language: string;
  /** Latency to the party's best region (the lenience model's per-player latency). */
  readonly bestLatencyMs: number;
}

/** A game a matcher formed: ticket ids per team, and the region when the matcher chose one. */
export interface SimMatch {
  readonly teams: readonly (readonly string[])[];
  readonly region?: string;
  /** The matcher's own quality figure, when it gives one (gamefactory does). */
  readonly quality?: { readonly favouriteWinProbability: number; readonly matchQuality: number };
}

/** What the simulation drives: arrivals, then a check at every tick of simulated time. */
export interface SimulatedQueue {
  readonly name: string;
  arrive(ticket: QueuedTicket): void;
  check(now: number): SimMatch[];
  readonly waiting: number;
}
