/**
 * Apportioning slots among factories (Battle.net talk, "Queueing and Distribution", 2nd
 * attempt: "slots apportioned to factories by popularity").
 *
 * The rule. When servers that host several factories run short of slots, the creation queue
 * hands each freed slot to the factory whose turn it is under start-time fair queueing, where a
 * factory's weight is its popularity — requests queued plus recent requests (an exponentially
 * decayed count, half-life 60 s by default) — never below a floor weight (1 by default). So
 * over a busy period each factory gets slots in proportion to its demand (a popular game type
 * is not throttled to an equal split), while a factory that starts queueing enters at the
 * current virtual time and is served within one turn of each other waiting factory (a rare game
 * type is not starved behind a long popular queue).
 *
 * How the turns work (Goyal, Vin & Cheng, "Start-time Fair Queueing", SIGCOMM 1996, with one
 * "packet" = one game creation): each waiting factory f has a start tag S_f. The next request
 * comes from the factory with the smallest S_f among those with capacity (ties: older request
 * first). Serving f sets the virtual time V = S_f and, if f still has work, S_f = V + 1 / w_f
 * with w_f its weight at that moment. A factory whose queue was empty restarts at
 * max(V, its last finish tag), so idling earns no credit and a burst cannot jump the line.
 * Requests keep their FIFO order within a factory.
 */
import { DecayingRate } from './decaying-rate.js';

export interface ApportionPolicy {
  /** Share weight (> 0) of a factory with `queued` waiting requests, at `now`. */
  weight(factory: string, queued: number, now: number): number;
}

export interface DemandApportionOptions {
  /** Smallest weight any factory gets, so none starves. Default 1. */
  readonly floorWeight?: number;
  /** Half-life of the recent-requests count. Default 60 s. */
  readonly recentHalfLifeMs?: number;
}

/**
 * Popularity = queued + recent requests. Recent requests count only when the caller reports
 * them (`recordRequest`, e.g. on every FindGame of the factory, matched or not); without
 * reports the weight is the queue depth, which already shares slots in proportion to backlog.
 */
export class DemandApportion implements ApportionPolicy {
  readonly floorWeight: number;
  readonly recentHalfLifeMs: number;
  private readonly recent = new Map<string, DecayingRate>();

  constructor(options: DemandApportionOptions = {}) {
    this.floorWeight = options.floorWeight ?? 1;
    this.recentHalfLifeMs = options.recentHalfLifeMs ?? 60_000;
    if (!(this.floorWeight > 0)) throw new RangeError(`floorWeight must be > 0, got ${this.floorWeight}`);
  }

  recordRequest(factory: string, now: number, count = 1): void {
    let rate = this.recent.get(factory);
    if (rate === undefined) {
      rate = new DecayingRate(this.recentHalfLifeMs);
      this.recent.set(factory, rate);
    }
    rate.record(now, count);
  }

  /** Forgets a factory that was drained (its last server left). */
  forget(factory: string): void {
    this.recent.delete(factory);
  }

  popularity(factory: string, queued: number, now: number): number {
    return queued + (this.recent.get(factory)?.count(now) ?? 0);
  }

  weight(factory: string, queued: number, now: number): number {
    return Math.max(this.floorWeight, this.popularity(factory, queued, now));
  }
}

/** Equal turns regardless of demand: plain round-robin across waiting factories. */
export const equalApportion: ApportionPolicy = { weight: () => 1 };
