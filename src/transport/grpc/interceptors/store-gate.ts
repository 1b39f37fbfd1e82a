import { Metadata, ServerInterceptingCall, status, type ServerInterceptor } from '@grpc/grpc-js';
import type { FindGameRequest, FindGamesRequest, FindGameUpdate } from '../../../generated/gamefactory/v1/matchmaker.js';
import { MatchmakerService } from '../../../generated/gamefactory/v1/matchmaker.js';
import { MatchmakingError } from '../../../errors/index.js';
import { passThrough } from './pass-through.js';

export interface StoreGateOptions {
  /** Why the store cannot write now (a full disk), or undefined when it can. */
  readonly failing: () => Error | undefined;
  /** A ticket the coordinator holds already: its retry is a resume, not a new ticket. */
  readonly known: (ticketId: string) => boolean;
  /** The store, for the refusal: "the ticket store (LMDB in data/)". */
  readonly storeName: string;
  readonly retryAfterMs: number;
  readonly onRefused?: () => void;
}

/**
 * While the ticket store cannot write (a full disk), new tickets are refused with UNAVAILABLE
 * naming the store and a retry hint: a coordinator that took them could not keep them across a
 * restart. Tickets it holds already keep their place and may be resumed. On FindGames one refused
 * find is that ticket's error update; the stream goes on.
 */
export function storeGateInterceptor(options: StoreGateOptions): ServerInterceptor {
  const refusalOf = storeRefusal(options);
  const refuses = (ticketId: string): MatchmakingError | undefined => {
    const refused = refusalOf(ticketId);
    if (refused) options.onRefused?.();
    return refused;
  };
  return (descriptor, call) => {
    if (descriptor.path === MatchmakerService.findGame.path) {
      // A FindGame is one ticket whose request comes right behind its headers: while the store
      // writes, the call is handed on as it is, not kept behind an intercepting call (a call
      // object, a listener and their closures per ticket, the grpc-js share of FindGame's CPU).
      // A store that fails in between loses that one ticket's write, as one failing just after
      // the ticket was taken would; the write failure is counted either way.
      if (options.failing() === undefined) return passThrough(call);
      const intercepting: ServerInterceptingCall = new ServerInterceptingCall(call, {
        start: (next) =>
          next({
            onReceiveMessage: (message: FindGameRequest, nextMessage) => {
              const refused = typeof message?.ticketId === 'string' ? refuses(message.ticketId) : undefined;
              if (!refused) return nextMessage(message);
              const metadata = new Metadata();
              metadata.set('retry-after-ms', String(options.retryAfterMs));
              intercepting.sendStatus({ code: status.UNAVAILABLE, details: refused.message, metadata });
            },
          }),
      });
      return intercepting;
    }
    if (descriptor.path === MatchmakerService.findGames.path) {
      const intercepting: ServerInterceptingCall = new ServerInterceptingCall(call, {
        start: (next) =>
          next({
            onReceiveMessage: (message: FindGamesRequest, nextMessage) => {
              const request = message?.request;
              const refuse = (find: FindGameRequest): boolean => {
                const refused = refuses(find.ticketId);
                if (!refused) return false;
                const update: FindGameUpdate = { ticketId: find.ticketId, update: { $case: 'error', value: { code: status.UNAVAILABLE, message: refused.message } } };
                intercepting.sendMessage(update, () => {});
                return true;
              };
              if (request?.$case === 'find' && refuse(request.value)) {
                // An empty request, which the handler ignores: grpc-js reads the next message only once the handler has this one.
                return nextMessage({});
              }
              if (request?.$case === 'batch') {
                const finds = request.value.finds.filter((find) => !refuse(find));
                return nextMessage({ request: { $case: 'batch', value: { ...request.value, finds } } });
              }
              nextMessage(message);
            },
          }),
      });
      return intercepting;
    }
    return passThrough(call);
  };
}

/**
 * The gate's question (why a new ticket is refused now, if it is), for the gate at receipt and
 * again when a find's turn comes (transport/grpc/input-pacer.ts): the store may have failed while
 * it waited, and a ticket taken then could not be kept either. The caller counts a refusal.
 */
export function storeRefusal(options: Omit<StoreGateOptions, 'onRefused'>): (ticketId: string) => MatchmakingError | undefined {
  return (ticketId) => {
    const error = options.failing();
    if (error === undefined || options.known(ticketId)) return undefined;
    const message = `${options.storeName} cannot write (${error.message.split('\n')[0]}): new tickets are refused until it can; waiting tickets keep their place`;
    return new MatchmakingError('UNAVAILABLE', message, options.retryAfterMs);
  };
}
