import { IndexedHeap } from '../collections/indexed-heap.js';
import type { Reservation } from './game-record.js';

/**
 * Outstanding seat reservations by token, and by deadline so that expiry costs O(log n) per
 * expired reservation and the next deadline is O(1) (no timers: the coordinator asks when).
 */
export class ReservationBook {
  private readonly byToken = new Map<string, Reservation>();
  private readonly byDeadline = new IndexedHeap<Reservation>(
    (a, b) => a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.token < b.token),
  );

  get size(): number {
    return this.byToken.size;
  }

  get(token: string): Reservation | undefined {
    return this.byToken.get(token);
  }

  add(reservation: Reservation): void {
    if (this.byToken.has(reservation.token)) throw new Error(`reservation token '${reservation.token}' is already in use`);
    this.byToken.set(reservation.token, reservation);
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
