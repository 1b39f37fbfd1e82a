import { IndexedHeap } from '../collections/indexed-heap.js';
import type { Reservation } from './game-record.js';

/**
 * Outstanding seat reservations by token, and by deadline so that expiry costs O(log n) per
 * expired reservation and the next deadline is O(1) (no timers: the coordinator asks when).
 * Reservations with the same deadline expire in the order they were made. (By token, as before,
 * the heap compared strings at every level: parties reserving in one millisecond share a deadline,
 * and their tokens share a long prefix, the creation's; removing one as its players joined was
 * ~3% of a batched ticket's CPU.)
 */
export class ReservationBook {
  private readonly byToken = new Map<string, Reservation>();
  private readonly byDeadline = new IndexedHeap<Reservation>(
    (a, b) => a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.order < b.order),
  );
  /** Reservations added so far: the next one's `order`. */
  private added = 0;

  get size(): number {
    return this.byToken.size;
  }

  get(token: string): Reservation | undefined {
    return this.byToken.get(token);
  }

  add(reservation: Reservation): void {
    if (this.byToken.has(reservation.token)) throw new Error(`reservation token '${reservation.token}' is already in use`);
    this.byToken.set(reservation.token, reservation);
    reservation.order = this.added++;
    this.byDeadline.push(reservation);
  }

  /** Forgets a reservation; a no-op when it already ended. */
  delete(reservation: Reservation): void {
    if (this.byToken.get(reservation.token) !== reservation) return;
    this.byToken.delete(reservation.token);
    this.byDeadline.remove(reservation);
  }

  nextExpiry(): number | undefined {
    return this.byDeadline.peek()?.expiresAt;
  }

  /** The earliest reservation whose deadline is at or before `now`, still in the book. */
  nextExpired(now: number): Reservation | undefined {
    const next = this.byDeadline.peek();
    return next !== undefined && next.expiresAt <= now ? next : undefined;
  }
}
