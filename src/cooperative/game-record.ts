import type { AttributeSet } from '../attributes/attribute-value.js';
import type { HeapItem } from '../collections/indexed-heap.js';

/**
 * The matcher's mutable record of one game. Indexes hold references to it (never copies), so
 * a change is applied once here and then each index is told to re-position the game.
 */
export class GameRecord {
  /**
   * Promised seats: one is kept in the two fields below, more in a Map by player (in promise
   * order), allocated only while there are two or more. Most games hold none or one, and a Map
   * per reservation was 190 bytes of garbage per reserve (perf/PROFILE.md).
   */
  private seatPlayer: string | undefined;
  private seatReservation: Reservation | undefined;
  private seatMap: Map<string, Reservation> | undefined;
  /**
   * The open-game index's view of the game (see OpenGameIndex): the buckets of every subset of
   * its matchable attributes, its places in them, and the bucket it belongs in now (0: closed or
   * full). Which buckets it sits in, per subset, is a bitmask in BucketPlaces by `denseIndex`, so
   * a move that finds its places already there reads typed arrays, not 2^a objects.
   */
  subsets: object[] = [];
  /**
   * subsets.length on the record itself: a reservation loops over it, and at 100k open games
   * reading the array's length was one more cache miss.
   */
  subsetCount = 0;
  /** The game's index in BucketPlaces while it is in the open-game index (its place ids follow from it). */
  denseIndex = -1;
  indexedSlots = 0;
  /**
   * players.size and seats.size, kept as numbers on the record: reserve and release read them for
   * the totals and the open slots, and at 100k games the Set was one more cache miss.
   * The matcher sets playerCount after every change to `players`.
   */
  playerCount = 0;
  seatCount = 0;
  /** Positions in the start-time orders used for min/max duration stats. */
  readonly newestFirst: StartEntry = { game: this, heapIndex: -1 };
  readonly oldestFirst: StartEntry = { game: this, heapIndex: -1 };

  constructor(
    readonly gameId: string,
    public attributes: AttributeSet,
    public startedAt: number,
    public open: boolean,
    readonly players: Set<string>,
  ) {
    this.playerCount = players.size;
  }

  /** The reservation holding a seat for this player, if any. */
  seatOf(playerId: string): Reservation | undefined {
    if (this.seatMap !== undefined) return this.seatMap.get(playerId);
    return this.seatPlayer === playerId ? this.seatReservation : undefined;
  }

  /** Promised seats as [player, reservation], in promise order. */
  seats(): [string, Reservation][] {
    if (this.seatMap !== undefined) return [...this.seatMap];
    return this.seatPlayer === undefined ? [] : [[this.seatPlayer, this.seatReservation as Reservation]];
  }

  /** Promises a seat to a player who holds none in this game. */
  promiseSeat(playerId: string, reservation: Reservation): void {
    if (this.seatCount === 0) {
      this.seatPlayer = playerId;
      this.seatReservation = reservation;
    } else {
      if (this.seatMap === undefined) {
        this.seatMap = new Map([[this.seatPlayer as string, this.seatReservation as Reservation]]);
        this.seatPlayer = undefined;
        this.seatReservation = undefined;
      }
      this.seatMap.set(playerId, reservation);
    }
    this.seatCount++;
  }

  freeSeat(playerId: string): void {
    const seats = this.seatMap;
    if (seats !== undefined) {
      if (!seats.delete(playerId)) return;
      if (seats.size === 0) this.seatMap = undefined;
    } else {
      if (this.seatPlayer !== playerId || this.seatCount === 0) return;
      this.seatPlayer = undefined;
      this.seatReservation = undefined;
    }
    this.seatCount--;
  }

  freeAllSeats(): void {
    this.seatMap = undefined;
    this.seatPlayer = undefined;
    this.seatReservation = undefined;
    this.seatCount = 0;
  }
}

/** A party's promise of seats in one game, identified by the token its client was given. */
export interface Reservation extends HeapItem {
  readonly token: string;
  readonly game: GameRecord;
  /**
   * Players who have not joined yet, in party order; the reservation ends when this is empty.
   * An array: a party is at most maxPlayers, and a Set was 155 bytes of garbage per reserve.
   */
  readonly pendingPlayers: string[];
  readonly expiresAt: number;
  /** When it was made, among the book's reservations (set by ReservationBook.add): breaks ties of expiresAt. */
  order: number;
}

export interface StartEntry extends HeapItem {
  readonly game: GameRecord;
}

/** maxPlayers − players − promised seats, never below 0 (a server may over-fill a game). */
export function openSlotsOf(game: GameRecord, maxPlayers: number): number {
  return Math.max(0, maxPlayers - game.playerCount - game.seatCount);
}

/**
 * Among games with the same number of open slots, the one that started most recently comes
 * first: it has the most time left to play (Battle.net talk: "quality: time left to play (coop)").
 * Game id breaks exact ties so the choice is deterministic.
 */
export function newerGameFirst(a: GameRecord, b: GameRecord): boolean {
  return a.startedAt > b.startedAt || (a.startedAt === b.startedAt && a.gameId < b.gameId);
}
