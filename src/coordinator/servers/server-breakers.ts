import type { ServerCapacity } from '../../placement/index.js';
import type { CoreDeps } from '../ports.js';

/** After this many failed creations in a row a server gets a rest, doubling each time it fails again. */
const FAILURES_BEFORE_BACKOFF = 3;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

interface Breaker {
  advertised: ServerCapacity;
  failures: number;
  cancelBackoff: (() => void) | undefined;
}

/**
 * A circuit breaker per game server: one that keeps failing or ignoring creations gets none for
 * a while (placement sees no free slots on it), so its requests go to healthy servers instead of
 * bouncing; after the rest it gets its advertised capacity back. Logged and counted.
 */
export class ServerBreakers {
  private readonly breakers = new Map<string, Breaker>();

  constructor(
    private readonly deps: CoreDeps,
    /** Tells placement the capacity a server should be seen with. */
    private readonly setCapacity: (serverId: string, capacity: ServerCapacity) => void,
    /** A server came back from a rest: its slots are free again. */
    private readonly recovered: () => void,
  ) {}

  add(serverId: string, capacity: ServerCapacity): void {
    this.breakers.set(serverId, { advertised: capacity, failures: 0, cancelBackoff: undefined });
  }

  remove(serverId: string): void {
    this.breakers.get(serverId)?.cancelBackoff?.();
    this.breakers.delete(serverId);
  }

  /** The server advertised a new capacity; placement hears of it now unless the server is resting. */
  advertise(serverId: string, capacity: ServerCapacity): void {
    const breaker = this.breakers.get(serverId);
    if (!breaker) return;
    breaker.advertised = capacity;
    if (!breaker.cancelBackoff) this.setCapacity(serverId, capacity);
  }

  /** What the server advertised, whatever placement sees while it rests. */
  advertised(serverId: string): ServerCapacity | undefined {
    return this.breakers.get(serverId)?.advertised;
  }

  /** Resting after repeated failures: placement sees no free slot on it. */
  resting(serverId: string): boolean {
    return this.breakers.get(serverId)?.cancelBackoff !== undefined;
  }

  succeeded(serverId: string): void {
    const breaker = this.breakers.get(serverId);
    if (breaker) breaker.failures = 0;
  }

  failed(serverId: string): void {
    const breaker = this.breakers.get(serverId);
    if (!breaker || ++breaker.failures < FAILURES_BEFORE_BACKOFF || breaker.cancelBackoff) return;
    const backoffMs = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (breaker.failures - FAILURES_BEFORE_BACKOFF));
    this.deps.log.warn({ serverId, failures: breaker.failures, backoffMs }, 'game server keeps failing creations; backing off');
    this.deps.events.emit('serverBackedOff', { serverId, backoffMs });
    this.setCapacity(serverId, { ...breaker.advertised, maxGames: 0 });
    breaker.cancelBackoff = this.deps.timers.set(() => {
      breaker.cancelBackoff = undefined;
      if (this.breakers.get(serverId) !== breaker) return;
      this.setCapacity(serverId, breaker.advertised);
      this.recovered();
    }, backoffMs);
  }
}
