import type { TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { Assignment, FindRequest, TicketListener } from '../messages.js';

/**
 * Where a ticket stands. A ticket is in exactly one of these until it ends (then it leaves the
 * book, and the end's reason goes to its listener and the findFinished event).
 *
 * parked:   restored after a restart; its factory has no server yet
 * pooled:   waiting in its factory (a competitive pool), or being matched right now
 * proposed: in a game its players must accept first (a ready check, `matchId`); out of the pool
 * placing:  part of a game creation; `position` is its place in the line for a slot, once queued
 * assigned: done; the book keeps an AnsweredTicket instead a little, so a retry gets the same assignment
 */
export type TicketState =
  | { readonly kind: 'parked' }
  | { readonly kind: 'pooled' }
  | { readonly kind: 'proposed'; readonly matchId: string }
  | { readonly kind: 'placing'; readonly creationId: string; readonly position: number | undefined }
  | { readonly kind: 'assigned'; readonly assignment: Assignment };

export type TicketStateKind = TicketState['kind'];

export type EndReason = 'cancelled' | 'expired' | 'failed' | 'declined' | 'acceptance-timed-out' | 'retention-over';

/** A FindGame in progress. One party; its players are in no other live ticket meanwhile. */
export interface Ticket {
  readonly id: string;
  readonly request: FindRequest;
  readonly factory: string;
  readonly playerIds: readonly string[];
  readonly createdAt: number;
  /** Arrival order (the core's counter, after restored tickets), kept across restarts: its priority for a slot. */
  readonly arrival: number;
  /** Who may cancel or resume it; absent: anyone (a trusted in-process caller opened it). */
  readonly owner: TicketOwner | undefined;
  /** Moved only by TicketBook. */
  readonly state: TicketState;
  readonly listener: TicketListener | undefined;
  /** Written to the ticket store (it had to wait). */
  readonly persisted: boolean;
}

/**
 * What is kept of a ticket once it has its game, for ASSIGNED_RETENTION_MS, so a retry gets the same
 * assignment: not its request (a few hundred bytes with its party, lists and strings) but the
 * request's fingerprint hashed to 60 bits, as two small integers (V8 keeps them in the object, no
 * allocation). A different request under the same id is refused unless its hash collides (about 1
 * in 10^18; the owner is still checked, so a collision can only hand a caller its own assignment).
 */
export interface AnsweredTicket {
  readonly id: string;
  readonly factory: string;
  readonly createdAt: number;
  readonly arrival: number;
  readonly owner: TicketOwner | undefined;
  readonly assignment: Assignment;
  readonly hashHigh: number;
  readonly hashLow: number;
}

/** Equal for retries of the same request; a different request under the same id is refused. */
export function fingerprint(request: FindRequest): string {
  const sorted = (m: ReadonlyMap<string, unknown>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    request.template,
    request.party.map((p) => [p.playerId, p.score ?? null]),
    sorted(request.partition),
    sorted(request.matchable),
    sorted(request.latenciesMs),
    request.preferredMaps,
    request.vetoedMaps,
    request.waitBudgetMs ?? null,
    request.maxLatencyMs ?? null,
    request.location ? [request.location.latitude, request.location.longitude] : null,
    request.softAttributes ? sorted(request.softAttributes) : null,
  ]);
}

/**
 * The fingerprint's fields hashed to two 30-bit integers (Smis: stored in the object, no heap
 * number): two independent 32-bit multiply-xorshift hashes with murmur3's finaliser, fed the same
 * fields as `fingerprint` (strings with their length, maps in key order, absent fields tagged) with
 * no string built, so assigning a ticket costs ~1 µs here instead of a JSON text.
 */
export function fingerprintHash(request: FindRequest): readonly [high: number, low: number] {
  const h = new PairHash();
  h.text(request.template);
  h.int(request.party.length);
  for (const p of request.party) {
    h.text(p.playerId);
    h.number(p.score);
  }
  h.textMap(request.partition);
  h.textMap(request.matchable);
  h.int(request.latenciesMs.size);
  for (let key = firstKey(request.latenciesMs); key !== undefined; key = keyAfter(request.latenciesMs, key)) {
    h.text(key);
    h.number(request.latenciesMs.get(key));
  }
  h.texts(request.preferredMaps);
  h.texts(request.vetoedMaps);
  h.number(request.waitBudgetMs);
  h.number(request.maxLatencyMs);
  h.number(request.location?.latitude);
  h.number(request.location?.longitude);
  if (request.softAttributes) h.textMap(request.softAttributes);
  else h.int(-1);
  return [fmix32(h.a) >>> 2, fmix32(h.b) >>> 2];
}

/*
 * A map's keys in order without sorting a copy: every assigned ticket is hashed, and copying and
 * sorting its partition's keys was ~1 KB of garbage a ticket (allocation profile of the 120k
 * end-to-end run). O(k²) in the map's size, bounded by the input limits (16 attributes, 32
 * latencies); keys are distinct, so "the least key after the last" walks them all once.
 */
function firstKey(m: ReadonlyMap<string, unknown>): string | undefined {
  let least: string | undefined;
  for (const key of m.keys()) if (least === undefined || key < least) least = key;
  return least;
}

function keyAfter(m: ReadonlyMap<string, unknown>, last: string): string | undefined {
  let next: string | undefined;
  for (const key of m.keys()) if (key > last && (next === undefined || key < next)) next = key;
  return next;
}

/** Each attribute map's digest, by identity (see PairHash.textMap). */
const mapDigests = new WeakMap<ReadonlyMap<string, string>, readonly [number, number]>();

class PairHash {
  a = 0x811c9dc5;
  b = 0x2545f491;

  int(n: number): void {
    this.a = Math.imul(this.a ^ n, 0x01000193);
    this.b = Math.imul(this.b ^ n, 0x5bd1e995);
    this.b ^= this.b >>> 15;
  }

  text(s: string): void {
    this.int(s.length);
    for (let i = 0; i < s.length; i++) this.int(s.charCodeAt(i));
  }

  texts(list: readonly string[]): void {
    this.int(list.length);
    for (let i = 0; i < list.length; i++) this.text(list[i]!);
  }

  /**
   * A map by its size and its entries' digest. A request's attribute sets are the decoder's
   * interned ones (one Map for every ticket that sends the same set, never changed: ReadonlyMap),
   * so the digest is computed once per set and looked up after, not rehashed per ticket.
   */
  textMap(m: ReadonlyMap<string, string>): void {
    this.int(m.size);
    if (m.size === 0) return;
    let digest = mapDigests.get(m);
    if (digest === undefined) {
      const h = new PairHash();
      for (let key = firstKey(m); key !== undefined; key = keyAfter(m, key)) {
        h.text(key);
        h.text(m.get(key)!);
      }
      digest = [fmix32(h.a), fmix32(h.b)];
      mapDigests.set(m, digest);
    }
    this.int(digest[0]);
    this.int(digest[1]);
  }

  /** Absent, an int32, or any other number by its text. */
  number(n: number | undefined): void {
    if (n === undefined) return this.int(-1);
    if ((n | 0) === n && !Object.is(n, -0)) {
      this.int(-2);
      return this.int(n);
    }
    this.int(-3);
    this.text(String(n));
  }
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
