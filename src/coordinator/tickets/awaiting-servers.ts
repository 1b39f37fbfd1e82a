import type { Ticket } from './ticket.js';
import type { PlacedRecord } from './ticket-record.js';

/**
 * Tickets retried after a restart whose game had been ordered on a server that has not
 * reconnected yet: they wait for it (a while, see TicketDesk) rather than start over, since it
 * may come back with their game. By ticket, and by the server they wait for.
 */
export class AwaitingServers {
  private readonly tickets = new Map<string, { readonly ticket: Ticket; readonly placed: PlacedRecord }>();
  private readonly byServer = new Map<string, Set<string>>();

  get size(): number {
    return this.tickets.size;
  }

  add(ticket: Ticket, placed: PlacedRecord): void {
    this.tickets.set(ticket.id, { ticket, placed });
    let ids = this.byServer.get(placed.serverId);
    if (!ids) this.byServer.set(placed.serverId, (ids = new Set()));
    ids.add(ticket.id);
  }

  /** The ticket no longer waits (assigned, given up on, ended); its record if it did. */
  remove(ticketId: string): PlacedRecord | undefined {
    const entry = this.tickets.get(ticketId);
    if (!entry) return undefined;
    this.tickets.delete(ticketId);
    const ids = this.byServer.get(entry.placed.serverId);
    if (ids?.delete(ticketId) && ids.size === 0) this.byServer.delete(entry.placed.serverId);
    return entry.placed;
  }

  /** Every ticket waiting for `serverId`, with where its game was ordered. */
  on(serverId: string): { readonly ticket: Ticket; readonly placed: PlacedRecord }[] {
    return [...(this.byServer.get(serverId) ?? [])].map((id) => this.tickets.get(id)!);
  }
}
