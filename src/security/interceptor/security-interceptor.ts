import { Metadata, ServerInterceptingCall, status, type ServerInterceptor, type StatusObject } from '@grpc/grpc-js';
import type { FindGameRequest, FindGamesRequest, FindGameUpdate } from '../../generated/gamefactory/v1/matchmaker.js';
import { permissionDenied, SecurityError, unauthenticated } from '../errors.js';
import type { Limits, RateFamily } from '../limits/limits-config.js';
import type { PeerLimits } from '../limits/peer-limits.js';
import type { LimitListener } from '../limits/limit-events.js';
import { idleRefusal, IdleClock, StreamTickets } from '../limits/stream-limits.js';
import { classifyPath, type SecuredMethod } from '../roles/methods.js';
import { authorize, authorizeCall, type SecuredRequest } from '../roles/policy.js';
import type { TlsSettings } from '../security-config.js';
import { ANONYMOUS, type Principal } from '../tokens/principal.js';
import type { TokenVerifier } from '../tokens/token-verifier.js';
import { authenticate } from './authenticate.js';

/** The verified principal, as JSON, in the metadata the handler sees (a client's own value is dropped). */
export const PRINCIPAL_METADATA_KEY = 'x-gamefactory-principal';

export function principalOf(metadata: Metadata): Principal | undefined {
  const value = metadata.get(PRINCIPAL_METADATA_KEY)[0];
  return typeof value === 'string' ? (JSON.parse(value) as Principal) : undefined;
}

export interface SecurityInterceptorOptions {
  /** insecure: development mode, every call is the anonymous admin-player (no roles), limits still apply. */
  readonly insecure: boolean;
  readonly tokens?: TokenVerifier;
  readonly serverIdentity: TlsSettings['serverIdentity'];
  readonly limits: Limits;
  readonly peerLimits: PeerLimits;
  readonly onLimit?: LimitListener;
  readonly now: () => number;
  /** The admin Drain method's path, once it exists. */
  readonly drainPath?: string;
}

const STREAMS = new Set<SecuredMethod>(['Connect', 'FindGame', 'FindGames']);
const CALL_RATE: Partial<Record<SecuredMethod, RateFamily>> = {
  FindGame: 'findGame',
  QueryStats: 'queryStats',
  CancelFind: 'cancelFind',
  // A ready check's answer is about as frequent as a cancel: the same bucket.
  RespondToMatch: 'cancelFind',
  GetRating: 'ratings',
  Leaderboard: 'ratings',
  PlayerRank: 'ratings',
};
/** Public, long-lived and free to open: counted per address like any stream, or a flood of them holds memory. */
const PUBLIC_STREAMS = new Set(['/grpc.health.v1.Health/Watch']);

/**
 * Authentication, roles and limits for every call, as one grpc-js server interceptor:
 * metadata → principal (token or client certificate) → role table → rate and stream limits; each
 * message → the request-level rules (hello's server id, a player's party) and per-find rates;
 * FindGames keeps its tickets in flight counted from the updates it sends. Ticket ownership
 * stays with the core (TicketOwnership), which reads the principal with `principalOf`.
 */
export function securityInterceptor(options: SecurityInterceptorOptions): ServerInterceptor {
  return (descriptor, call) => {
    const kind = classifyPath(descriptor.path, options.drainPath);
    const method = kind.kind === 'secured' ? kind.method : undefined;
    let principal: Principal | undefined;
    let release: (() => void) | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    let ended = false;
    const peerAddress = call.getPeer().replace(/:\d+$/, '');
    const peer = () => (principal && principal !== ANONYMOUS ? `${principal.role}:${principal.subject}` : peerAddress);
    const idle = method === 'FindGame' || method === 'FindGames' ? new IdleClock(options.limits.idleStreamTimeoutMs, options.now()) : undefined;
    let tickets: StreamTickets | undefined;

    const cleanUp = () => {
      ended = true;
      release?.();
      release = undefined;
      if (idleTimer) clearTimeout(idleTimer);
    };
    const refuse = (error: unknown) => {
      if (ended) return;
      const metadata = new Metadata();
      if (error instanceof SecurityError && error.retryAfterMs !== undefined) metadata.set('retry-after-ms', String(error.retryAfterMs));
      const refusal: StatusObject =
        error instanceof SecurityError
          ? { code: error.grpcCode, details: error.message, metadata }
          : { code: status.UNAUTHENTICATED, details: 'credentials could not be checked', metadata };
      interceptingCall.sendStatus(refusal);
    };
    const armIdle = () => {
      if (!idle || ended) return;
      idleTimer = setTimeout(() => {
        if (idle.isIdle(options.now())) {
          options.onLimit?.({ limit: 'idleStreamTimeoutMs', peer: peer() });
          refuse(idleRefusal(options.limits.idleStreamTimeoutMs));
        } else armIdle();
      }, Math.max(1, idle.remainingMs(options.now())));
      idleTimer.unref?.();
    };

    /**
     * A batched FindGames message: each find passes the same checks as a single one
     * (the caller's players, the per-find rate, tickets in flight); a refused find is answered with
     * its own error update and left out, the rest of the batch goes on to the handler.
     */
    const admitBatch = (message: FindGamesRequest): FindGamesRequest => {
      const batch = message.request as Extract<FindGamesRequest['request'], { $case: 'batch' }>;
      const admitted: FindGameRequest[] = [];
      for (const find of batch.value.finds) {
        try {
          const single = { request: { $case: 'find', value: find } };
          if (method && !options.insecure) authorize(principal, { method, message: single } as SecuredRequest);
          options.peerLimits.admit(peer(), principal?.role, 'findGames', options.now());
          tickets?.add(find.ticketId);
          admitted.push(find);
        } catch (error) {
          if (!(error instanceof SecurityError)) throw error;
          interceptingCall.sendMessage({ ticketId: find.ticketId, update: { $case: 'error', value: { code: error.grpcCode, message: error.message } } }, () => {});
        }
      }
      return { request: { $case: 'batch', value: { ...batch.value, finds: admitted } } };
    };

    const interceptingCall: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            metadata.remove(PRINCIPAL_METADATA_KEY);
            void admitCall(metadata).then(
              () => {
                if (ended) {
                  release?.(); // cancelled while credentials were being checked
                  return;
                }
                if (principal) metadata.set(PRINCIPAL_METADATA_KEY, JSON.stringify(principal));
                armIdle();
                nextMetadata(metadata);
              },
              (error: unknown) => refuse(error),
            );
          },
          onReceiveMessage: (message, nextMessage) => {
            if (ended) return;
            idle?.touch(options.now());
            if (method === 'FindGames' && (message as FindGamesRequest).request?.$case === 'batch') {
              nextMessage(admitBatch(message as FindGamesRequest));
              return;
            }
            try {
              if (method && !options.insecure) authorize(principal, { method, message } as SecuredRequest);
              if (method === 'FindGames') {
                const find = (message as { request?: { $case: string; value: { ticketId: string } } }).request;
                if (find?.$case === 'find') {
                  options.peerLimits.admit(peer(), principal?.role, 'findGames', options.now());
                  tickets?.add(find.value.ticketId);
                }
              }
            } catch (error) {
              if (method === 'FindGames' && error instanceof SecurityError) {
                // One refused find on a multiplexed stream is that ticket's error, not the stream's end.
                const ticketId = (message as { request?: { value?: { ticketId?: string } } }).request?.value?.ticketId ?? '';
                const update: FindGameUpdate = { ticketId, update: { $case: 'error', value: { code: error.grpcCode, message: error.message } } };
                interceptingCall.sendMessage(update, () => {});
                // An empty request, which the handler ignores, instead of none: grpc-js reads the
                // next message only once the handler has this one, so swallowing it stalls the stream.
                nextMessage({});
                return;
              }
              refuse(error);
              return;
            }
            nextMessage(message);
          },
          onCancel: () => cleanUp(),
        }),
      sendMessage: (message, next) => {
        idle?.touch(options.now());
        const update = (message as FindGameUpdate).update;
        if (tickets && update?.$case === 'batch') {
          for (const inner of update.value.updates) if (inner.update && inner.update.$case !== 'queued') tickets.remove(inner.ticketId);
        } else if (tickets && update && update.$case !== 'queued') tickets.remove((message as FindGameUpdate).ticketId);
        next(message);
      },
      sendStatus: (s, next) => {
        cleanUp();
        next(s);
      },
    });

    const admitCall = async (metadata: Metadata): Promise<void> => {
      if (kind.kind === 'public') {
        if (PUBLIC_STREAMS.has(descriptor.path)) release = options.peerLimits.openStream(peer(), options.now());
        return;
      }
      if (options.insecure) principal = ANONYMOUS;
      else {
        principal = await authenticate(metadata, call.getAuthContext(), options.tokens, options.serverIdentity);
        if (kind.kind === 'unknown') throw permissionDenied(`${descriptor.path}: not in the policy table`);
        if (kind.kind === 'adminOnly') {
          // As for every secured method: no credentials is UNAUTHENTICATED, the wrong role PERMISSION_DENIED.
          if (principal === undefined) throw unauthenticated(`${descriptor.path}: a bearer token with role admin is required (authorization: Bearer <jwt>)`);
          if (principal.role !== 'admin') throw permissionDenied(`${descriptor.path}: admins only (role ${principal.role})`);
        }
        if (method) authorizeCall(principal, method);
      }
      const family = method ? CALL_RATE[method] : undefined;
      if (family) options.peerLimits.admit(peer(), principal?.role, family, options.now());
      if (method && STREAMS.has(method)) release = options.peerLimits.openStream(peer(), options.now());
      if (method === 'FindGames') tickets = new StreamTickets(options.limits, peer(), options.onLimit);
    };

    return interceptingCall;
  };
}
