import type { TicketRecord } from '../../coordinator/ports.js';
import type { ClaimConflict, KeptAssignment, Renewal, ShardState, ShardWrites, Term } from './shard-store.js';

interface Lease {
  readonly node: string;
  readonly token: number;
  expiresAt: number;
}

/**
 * The ShardStore's semantics in memory, synchronous, on an injected clock: what the Redis scripts
 * do, one operation at a time (each is atomic, as a script is). The simulator puts it behind a
 * simulated network (src/cluster/simulation/store-client.ts); it keeps what a Redis with AOF
 * `always` keeps, and `restart('lost')` models a Redis restarted without persistence.
 *
 * Tokens follow includes/fencing-token.lua: max(last + 1, the clock in microseconds), so a token
 * taken after a restart that lost the counter is still larger than every one before.
 */
export class MemoryShardStore {
  private leases = new Map<number, Lease>();
  private fences = new Map<number, number>();
  private tickets = new Map<number, Map<string, TicketRecord>>();
  private kept = new Map<number, Map<string, KeptAssignment>>();
  private members = new Map<string, number>();
  private claims = new Map<string, { ticketId: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  /** A restart: `kept` keeps every acknowledged write (AOF always); `lost` keeps nothing. */
  restart(mode: 'kept' | 'lost'): void {
    if (mode === 'kept') return;
    this.leases = new Map();
    this.fences = new Map();
    this.tickets = new Map();
    this.kept = new Map();
    this.members = new Map();
    this.claims = new Map();
  }

  beat(node: string, ttlMs: number): string[] {
    const now = this.now();
    this.members.set(node, now + ttlMs);
    const live: string[] = [];
    for (const [member, until] of this.members) {
      if (until > now) live.push(member);
      else this.members.delete(member);
    }
    return live.sort();
  }

  acquire(shard: number, node: string, leaseMs: number): Term | undefined {
    const held = this.lease(shard);
    if (held && held.node !== node) return undefined;
    const token = Math.max((this.fences.get(shard) ?? 0) + 1, Math.floor(this.now() * 1000));
    this.fences.set(shard, token);
    this.leases.set(shard, { node, token, expiresAt: this.now() + leaseMs });
    return { shard, node, token };
  }

  renew(term: Term, leaseMs: number): Renewal {
    const held = this.lease(term.shard);
    if (!held) return 'missing';
    if (held.token !== term.token) return 'taken';
    held.expiresAt = this.now() + leaseMs;
    return 'renewed';
  }

  release(term: Term): void {
    if (this.lease(term.shard)?.token === term.token) this.leases.delete(term.shard);
  }

  holders(shardCount: number): (Term | undefined)[] {
    return Array.from({ length: shardCount }, (_, shard) => {
      const held = this.lease(shard);
      return held && { shard, node: held.node, token: held.token };
    });
  }

  /** What holds the shard instead of `term` (nothing written), or undefined when written. */
  commit(term: Term, writes: ShardWrites): 'free' | 'taken' | undefined {
    const held = this.lease(term.shard);
    if (!held) return 'free';
    if (held.token !== term.token) return 'taken';
    let stored = this.tickets.get(term.shard);
    if (!stored) this.tickets.set(term.shard, (stored = new Map()));
    for (const record of writes.save) stored.set(record.request.ticketId, record);
    for (const ticketId of writes.remove) stored.delete(ticketId);
    let kept = this.kept.get(term.shard);
    if (!kept) this.kept.set(term.shard, (kept = new Map()));
    for (const k of writes.keep) kept.set(k.ticketId, k);
    return undefined;
  }

  restore(shard: number): ShardState {
    const now = this.now();
    const kept = [...(this.kept.get(shard)?.values() ?? [])].filter((k) => k.until > now);
    return { records: [...(this.tickets.get(shard)?.values() ?? [])], kept };
  }

  claim(ticketId: string, playerIds: readonly string[], ttlMs: number): ClaimConflict | undefined {
    const now = this.now();
    for (const playerId of playerIds) {
      const held = this.claims.get(playerId);
      if (held && held.expiresAt > now && held.ticketId !== ticketId) return { playerId, ticketId: held.ticketId };
    }
    for (const playerId of playerIds) this.claims.set(playerId, { ticketId, expiresAt: now + ttlMs });
    return undefined;
  }

  unclaim(ticketId: string, playerIds: readonly string[]): void {
    for (const playerId of playerIds) {
      if (this.claims.get(playerId)?.ticketId === ticketId) this.claims.delete(playerId);
    }
  }

  private lease(shard: number): Lease | undefined {
    const held = this.leases.get(shard);
    if (held && held.expiresAt <= this.now()) {
      this.leases.delete(shard);
      return undefined;
    }
    return held;
  }
}
