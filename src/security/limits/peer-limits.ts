import { resourceExhausted } from '../errors.js';
import type { Role } from '../tokens/principal.js';
import type { LimitListener, LimitName } from './limit-events.js';
import type { Limits, RateFamily } from './limits-config.js';
import { fullBucket, isFull, take, type Bucket } from './token-bucket.js';

interface PeerState {
  readonly peer: string;
  readonly buckets: Partial<Record<RateFamily, Bucket>>;
  streams: number;
  /** Neighbours in the idle order while the peer holds no stream; itself while it holds one. */
  older: PeerState;
  newer: PeerState;
}

/**
 * Per-peer limits: rate (token bucket per method family) and concurrent streams. A peer is the
 * principal's subject when authenticated, else the remote address. Pure state with the clock
 * passed in; the interceptor calls it on call start and per stream message. Memory is bounded:
 * peers at rest (full buckets, no streams) are forgotten, longest-idle first.
 *
 * Recency is a linked list through the states (the idle order), not the Map's insertion order:
 * deleting a key of a V8 Map and setting it again costs O(size) when one key does it over and
 * over (~20 µs a move on a 16k map, measured), which one busy peer's messages did. Peers holding
 * streams are out of the idle order, so forgetting the longest-idle peer is O(1) however many
 * hold streams; when every tracked peer holds one, a new peer is refused (maxTrackedPeers bounds
 * the peers holding streams too).
 */
export class PeerLimits {
  private readonly peers = new Map<string, PeerState>();
  /** The idle order's sentinel: `newer` is the longest-idle peer without streams, `older` the latest. */
  private readonly idle: PeerState = PeerLimits.detached('');

  constructor(
    private readonly limits: Limits,
    private readonly onLimit: LimitListener = () => {},
  ) {}

  /** Spends one token of `family` for `peer`, or throws RESOURCE_EXHAUSTED with a retry hint. */
  admit(peer: string, role: Role | undefined, family: RateFamily, nowMs: number): void {
    if (role !== undefined && this.limits.rateExemptRoles.includes(role)) return;
    const rate = this.limits.rate[family];
    const state = this.state(peer);
    const bucket = (state.buckets[family] ??= fullBucket(rate, nowMs));
    const result = take(bucket, rate, nowMs);
    if (!result.ok) {
      throw this.refuse(peer, `rate.${family}`, `limit rate.${family}: ${rate.perSecond}/s per peer (burst ${rate.burst}) exceeded; retry in ${result.retryAfterMs} ms`, result.retryAfterMs);
    }
  }

  /** Counts an open stream; the returned release must be called exactly once when it ends. */
  openStream(peer: string, nowMs: number): () => void {
    const state = this.state(peer);
    if (state.streams >= this.limits.maxStreamsPerPeer) {
      throw this.refuse(peer, 'maxStreamsPerPeer', `limit maxStreamsPerPeer: ${this.limits.maxStreamsPerPeer} open streams per peer reached`);
    }
    state.streams += 1;
    if (state.streams === 1) this.unlink(state);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.streams -= 1;
      if (state.streams === 0) this.linkNewest(state);
    };
  }

  openStreams(peer: string): number {
    return this.peers.get(peer)?.streams ?? 0;
  }

  trackedPeers(): number {
    return this.peers.size;
  }

  /** Forgets peers at rest; call now and then (the interceptor's timer) to keep memory flat. */
  sweep(nowMs: number): void {
    // Peers holding streams are never at rest, and are not in the idle order.
    for (let state = this.idle.newer; state !== this.idle; ) {
      const newer = state.newer;
      if (this.atRest(state, nowMs)) this.forget(state);
      state = newer;
    }
  }

  private state(peer: string): PeerState {
    let state = this.peers.get(peer);
    if (state) {
      if (state.streams === 0) {
        this.unlink(state);
        this.linkNewest(state);
      }
      return state;
    }
    if (this.peers.size >= this.limits.maxTrackedPeers) {
      const longestIdle = this.idle.newer;
      if (longestIdle === this.idle) {
        throw this.refuse(peer, 'maxTrackedPeers', `limit maxTrackedPeers: all ${this.peers.size} peers tracked hold open streams; retry in 1000 ms`, 1000);
      }
      // Its buckets refill by the time it returns, or it gets a fresh one: a flood from many
      // addresses cannot grow memory, at worst it resets them.
      this.forget(longestIdle);
    }
    state = PeerLimits.detached(peer);
    this.peers.set(peer, state);
    this.linkNewest(state);
    return state;
  }

  private forget(state: PeerState): void {
    this.unlink(state);
    this.peers.delete(state.peer);
  }

  private linkNewest(state: PeerState): void {
    state.older = this.idle.older;
    state.newer = this.idle;
    this.idle.older.newer = state;
    this.idle.older = state;
  }

  private unlink(state: PeerState): void {
    state.older.newer = state.newer;
    state.newer.older = state.older;
    state.older = state.newer = state;
  }

  private static detached(peer: string): PeerState {
    const state = { peer, buckets: {}, streams: 0 } as PeerState;
    state.older = state.newer = state;
    return state;
  }

  private atRest(state: PeerState, nowMs: number): boolean {
    if (state.streams > 0) return false;
    for (const [family, bucket] of Object.entries(state.buckets) as [RateFamily, Bucket][]) {
      if (!isFull(bucket, this.limits.rate[family], nowMs)) return false;
    }
    return true;
  }

  private refuse(peer: string, limit: LimitName, message: string, retryAfterMs?: number) {
    this.onLimit({ limit, peer });
    return resourceExhausted(message, retryAfterMs);
  }
}
