import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status, type Metadata, type ServerInterceptor } from '@grpc/grpc-js';
import { MatchmakingError } from '../../../errors/index.js';
import { toServiceError } from '../status.js';

/** What a gate knows about a call before its handler runs. */
export interface CallInfo {
  /** Full method path, e.g. "/gamefactory.v1.Matchmaker/FindGame". */
  readonly method: string;
  readonly metadata: Metadata;
  readonly peer: string;
  readonly streaming: boolean;
}

/**
 * The extension point for authentication, roles and rate limits: a gate sees each call's
 * metadata before the handler does and either lets it through (undefined) or refuses it with a
 * MatchmakingError (UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED with retry-after...),
 * which ends the call with that status. Gates run in order; the first refusal wins.
 */
export type CallGate = (call: CallInfo) => MatchmakingError | undefined | Promise<MatchmakingError | undefined>;

/** Runs the gates on each call's metadata. */
export function gateInterceptor(gates: readonly CallGate[]): ServerInterceptor {
  return (method, call) => {
    const streaming = method.requestStream || method.responseStream;
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const info: CallInfo = { method: method.path, metadata, peer: call.getPeer(), streaming };
        runGates(gates, info).then(
          (refusal) => {
            if (!refusal) return next(metadata);
            const e = toServiceError(refusal);
            call.sendStatus({ code: e.code ?? status.INTERNAL, details: e.details ?? refusal.message, metadata: e.metadata });
          },
          () => call.sendStatus({ code: status.UNAVAILABLE, details: 'the request could not be checked; retry' }),
        );
      })
      .build();
    return new ServerInterceptingCall(call, new ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

async function runGates(gates: readonly CallGate[], info: CallInfo): Promise<MatchmakingError | undefined> {
  for (const gate of gates) {
    const refusal = await gate(info);
    if (refusal) return refusal;
  }
  return undefined;
}
