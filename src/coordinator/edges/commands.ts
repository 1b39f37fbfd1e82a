import type { Principal } from '../../security/tokens/principal.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../messages.js';

/**
 * What the transport may ask: requests in. Implemented by the edge that runs a core (CoreHost,
 * which turns each call into an input of the core and applies the effects it returns: answers
 * reach the listener and channel passed here) and by a cluster node's gateway (which relays each
 * call to the matcher owner). State is read through CoordinatorView, happenings through
 * CoordinatorEvents.
 */
export interface CoordinatorCommands {
  /** FindGame. Throws MatchmakingError for a request that can never succeed as asked. */
  find(request: FindRequest, listener: TicketListener): void;
  /**
   * CancelFind. False when no ticket with that id is waiting; PERMISSION_DENIED when `caller` does
   * not own it. A cluster node's gateway answers once the ticket's owner has (a promise).
   */
  cancel(ticketId: string, caller?: Principal): boolean | Promise<boolean>;
  /** The client's stream went away: its waiting ticket is cancelled unless another call resumed it. */
  abandon(ticketId: string, listener: TicketListener): void;
  /** A server said hello. Returns the factories it now serves. Throws on an invalid hello. */
  connectServer(hello: ServerHello, channel: ServerChannel): string[];
  disconnectServer(serverId: string, channel: ServerChannel): void;
  onServerEvent(serverId: string, event: ServerEvent): void;
  /** The process is going down: nothing from now on changes stored state. */
  beginShutdown(): void;
}
