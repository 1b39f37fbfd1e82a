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
  /**
   * RespondToMatch (a ready check): true once every party has accepted. Absent where the edge
   * does not run ready checks (the transport then answers UNIMPLEMENTED).
   */
  respondToMatch?(ticketId: string, matchId: string, accept: boolean, caller?: Principal): boolean;
  /** The client's stream went away: its waiting ticket is cancelled unless another call resumed it. */
  abandon(ticketId: string, listener: TicketListener): void;
  /** A server said hello. Returns the factories it now serves. Throws on an invalid hello. */
  connectServer(hello: ServerHello, channel: ServerChannel): string[];
  disconnectServer(serverId: string, channel: ServerChannel): void;
  onServerEvent(serverId: string, event: ServerEvent): void;
  /** The process is going down: nothing from now on changes stored state. */
  beginShutdown(): void;
}

/**
 * Every command passed on to `commands` as it is: what a wrapper that watches a few calls
 * (recording, counting arrivals) spreads before the ones it changes. `commands` may be a class
 * instance, whose methods a spread of it would not copy.
 */
export function forwardingCommands(commands: CoordinatorCommands): CoordinatorCommands {
  return {
    find: (request, listener) => commands.find(request, listener),
    cancel: (ticketId, caller) => commands.cancel(ticketId, caller),
    ...(commands.respondToMatch && { respondToMatch: (ticketId: string, matchId: string, accept: boolean, caller?: Principal) => commands.respondToMatch!(ticketId, matchId, accept, caller) }),
    abandon: (ticketId, listener) => commands.abandon(ticketId, listener),
    connectServer: (hello, channel) => commands.connectServer(hello, channel),
    disconnectServer: (serverId, channel) => commands.disconnectServer(serverId, channel),
    onServerEvent: (serverId, event) => commands.onServerEvent(serverId, event),
    beginShutdown: () => commands.beginShutdown(),
  };
}
