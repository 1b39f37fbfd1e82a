import type { ServerCapacity } from '../../placement/index.js';
import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';

/** After this many failed creations in a row a server gets a rest, doubling each time it fails again. */
const FAILURES_BEFORE_BACKOFF = 3;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

interface Breaker {
  advertised: ServerCapacity;
  failures: number;
  resting: boolean;
}

/**
 * A circuit breaker per game server: one that keeps failing or ignoring creations gets none for
 * a while (placement sees no free slots on it), so its requests go to healthy servers instead of
 * bouncing; after the rest it gets its advertised capacity back. Its answers say what placement
 * should now see; the caller tells placement.
 */
export class ServerBreakers {
  private readonly breakers = new Map<string, Breaker>();

  constructor(private readonly ctx: CoreContext) {}

  add(serverId: string, capacity: ServerCapacity): void {
    this.breakers.set(serverId, { advertised: capacity, failures: 0, resting: false });
  }

  remove(serverId: string): void {
    this.breakers.delete(serverId);
    this.ctx.deadlines.delete(DeadlineKind.BreakerRest, serverId);
  }

  /** The server advertised a new capacity: what placement should see now (undefined while it rests). */
  advertise(serverId: string, capacity: ServerCapacity): ServerCapacity | undefined {
    const breaker = this.breakers.get(serverId);
    if (!breaker) return undefined;
    breaker.advertised = capacity;
    return breaker.resting ? undefined : capacity;
  }

  /** What the server advertised, whatever placement sees while it rests. */
  advertised(serverId: string): ServerCapacity | undefined {
    return this.breakers.get(serverId)?.advertised;
  }

  /** Resting after repeated failures: placement sees no free slot on it. */
  resting(serverId: string): boolean {
    return this.breakers.get(serverId)?.resting ?? false;
  }

  succeeded(serverId: string): void {
    const breaker = this.breakers.get(serverId);
    if (breaker) breaker.failures = 0;
  }

  /** A creation failed or timed out; answers the capacity placement should see if the server now rests. */
  failed(serverId: string): ServerCapacity | undefined {
    const breaker = this.breakers.get(serverId);
    if (!breaker || ++breaker.failures < FAILURES_BEFORE_BACKOFF || breaker.resting) return undefined;
    const backoffMs = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (breaker.failures - FAILURES_BEFORE_BACKOFF));
    this.ctx.out.warn({ serverId, failures: breaker.failures, backoffMs }, 'game server keeps failing creations; backing off');
    this.ctx.out.event('serverBackedOff', { serverId, backoffMs });
    breaker.resting = true;
    this.ctx.deadlines.set(DeadlineKind.BreakerRest, serverId, this.ctx.now() + backoffMs);
    return { ...breaker.advertised, maxGames: 0 };
  }

  /** The rest is over: the capacity placement should see again. */
  rested(serverId: string): ServerCapacity | undefined {
    const breaker = this.breakers.get(serverId);
    if (!breaker?.resting) return undefined;
    breaker.resting = false;
    return breaker.advertised;
  }
}
