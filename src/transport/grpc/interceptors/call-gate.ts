import { status, type Metadata } from '@grpc/grpc-js';
import { MatchmakingError } from '../../../errors/index.js';
import { toServiceError } from '../status.js';
import type { CallConcern, CallHooks, CallStatus } from './call-hooks.js';

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

/**
 * Runs the gates on each call's metadata. Gates that answer at once (the drain gate, token
 * checks) let the call on in the same turn, without a promise; one that throws or rejects ends
 * the call UNAVAILABLE (the chain's rule for a metadata hook).
 */
export function callGates(gates: readonly CallGate[]): CallConcern {
  // The same hooks for every call: nothing of a call is kept past its metadata.
  const hooks: CallHooks = {
    onMetadata(metadata, call) {
      const answer = runGates(gates, { method: call.method.path, metadata, peer: call.peer(), streaming: call.streaming }, 0);
      return isPromise(answer) ? answer.then(asStatus) : asStatus(answer);
    },
  };
  return () => (gates.length === 0 ? undefined : hooks);
}

function asStatus(refusal: Refusal): CallStatus | undefined {
  if (!refusal) return undefined;
  const e = toServiceError(refusal);
  return { code: e.code ?? status.INTERNAL, details: e.details ?? refusal.message, metadata: e.metadata };
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
