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
        const refuse = (refusal: MatchmakingError) => {
          const e = toServiceError(refusal);
          call.sendStatus({ code: e.code ?? status.INTERNAL, details: e.details ?? refusal.message, metadata: e.metadata });
        };
        const unchecked = () => call.sendStatus({ code: status.UNAVAILABLE, details: 'the request could not be checked; retry' });
        let answer: ReturnType<typeof runGates>;
        try {
          answer = runGates(gates, info, 0);
        } catch {
          return unchecked();
        }
        // Gates that answer at once (the drain gate, token checks) let the call on in the same turn.
        if (!isPromise(answer)) return answer ? refuse(answer) : next(metadata);
        answer.then((refusal) => (refusal ? refuse(refusal) : next(metadata)), unchecked);
      })
      .build();
    return new ServerInterceptingCall(call, new ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

type Refusal = MatchmakingError | undefined;

const isPromise = (value: Refusal | Promise<Refusal>): value is Promise<Refusal> => typeof (value as Promise<Refusal> | undefined)?.then === 'function';

/** The gates from `from` on, in order; a promise only from the first gate that answers with one. */
function runGates(gates: readonly CallGate[], info: CallInfo, from: number): Refusal | Promise<Refusal> {
  for (let i = from; i < gates.length; i++) {
    const answer = gates[i]!(info);
    if (isPromise(answer)) return answer.then((refusal) => refusal ?? runGates(gates, info, i + 1));
    if (answer) return answer;
  }
  return undefined;
}
