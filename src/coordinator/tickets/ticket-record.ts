import type { TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { FindRequest } from '../messages.js';

/** What is kept of a waiting ticket so a restarted coordinator (or a new owner) gives it its place back. */
export interface TicketRecord {
  readonly request: FindRequest;
  readonly createdAt: number;
  /** Arrival order: the ticket's priority in the creation queue, kept across restarts. */
  readonly arrival: number;
  /** Who may cancel or resume it; absent for tickets opened by a trusted caller. */
  readonly owner?: TicketOwner;
  /** Its game was ordered on a server and not yet confirmed when this was written. */
  readonly placed?: PlacedRecord;
}

/**
 * Where a ticket's game was ordered: after a crash, the game the server re-announces with this
 * request id is the ticket's, and its retry gets that game's assignment.
 */
export interface PlacedRecord {
  readonly requestId: string;
  readonly serverId: string;
  readonly token: string;
  /** When the CreateGame was sent, on the coordinator's clock: the game cannot have started before. */
  readonly at: number;
  readonly team: number;
  readonly map: string;
  readonly region: string;
}

/**
 * Durable waiting tickets: LMDB in the embedded process, a Redis hash on a cluster's matcher
 * owner. The edge applies the core's `store` and `unstore` effects here, a step's writes together
 * (one LMDB transaction, one fenced MULTI); a write is fire-and-forget.
 */
export interface TicketStore {
  save(record: TicketRecord): void;
  remove(ticketId: string): void;
  /**
   * The commit holding the writes made so far, while it is in flight (a store that writes in the
   * background: LMDB's batches). The edge tells clients and servers of a step only once the writes
   * before it are committed, so nothing they were told is lost to a kill -9. Absent, or undefined
   * when nothing is in flight: told at once (a cluster owner's seat holds its answers until its own commit).
   */
  inFlight?(): PromiseLike<unknown> | undefined;
}
