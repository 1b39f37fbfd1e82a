import { ServerInterceptingCall, status as grpcStatus, type Metadata, type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js';
import { passThrough } from './pass-through.js';

/** A status a hook ends the call with (grpc-js' PartialStatusObject). */
export type CallStatus = Parameters<ServerInterceptingCall['sendStatus']>[0];

/** The method a call is for, as grpc-js describes it to interceptors. */
export type CallMethod = Parameters<ServerInterceptor>[0];

/** What a concern may do to the call it watches. */
export interface CallHandle {
  readonly method: CallMethod;
  readonly streaming: boolean;
  /** The peer, as grpc-js names it ("127.0.0.1:53210"). */
  peer(): string;
  /** Ends the call with `status` now (the other concerns see it end, the log included). */
  end(status: CallStatus): void;
}

/** One concern's hooks on one call; each is optional. They are told the call, so a concern without per-call state can give every call the same hooks. */
export interface CallHooks {
  /**
   * The call's metadata arrived. undefined lets the call on; a status ends it; a promise (an async
   * gate) holds the call, and the later concerns' hooks, until it settles (a rejection ends it
   * UNAVAILABLE).
   */
  onMetadata?(metadata: Metadata, call: CallHandle): CallStatus | undefined | Promise<CallStatus | undefined>;
  /** A request message arrived: undefined passes it on, a status ends the call instead. */
  onMessage?(message: unknown, call: CallHandle): CallStatus | undefined;
  /** The call ended: with the status it was sent, or cancelled (undefined). Called once. */
  onEnd?(status: CallStatus | undefined, call: CallHandle): void;
}

/** A concern of the chain (log, deadline, gates...): its hooks for a call, or undefined when it has nothing to do with this one. */
export type CallConcern = (call: CallHandle) => CallHooks | undefined;

const UNCHECKED: CallStatus = { code: grpcStatus.UNAVAILABLE, details: 'the request could not be checked; retry' };

/**
 * The most UTF-8 bytes of a status message sent. It travels percent-encoded in the `grpc-message`
 * trailer, and a client drops trailers over its metadata limit (grpc-js: 8 KB by default) and
 * waits out its deadline, never seeing the status: a message that quoted a request's 600 KB field
 * (a library's, or one we did not cut) made its call hang. Cut here, where every status passes.
 */
export const MAX_STATUS_DETAILS_BYTES = 2048;

function boundedDetails(status: CallStatus): CallStatus {
  const details = status.details;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most messages need no counting.
  if (details === undefined || details.length * 3 <= MAX_STATUS_DETAILS_BYTES || Buffer.byteLength(details) <= MAX_STATUS_DETAILS_BYTES) return status;
  const cut = Buffer.from(details).subarray(0, MAX_STATUS_DETAILS_BYTES - 3).toString().replace(/\uFFFD$/, '');
  return { ...status, details: `${cut}…` };
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as Promise<T> | undefined)?.then === 'function';

/**
 * The chain's concerns run as hooks of one intercepting call per call. grpc-js keeps one
 * ServerInterceptingCall, one listener and two four-function objects per interceptor for the
 * call's whole life, which on a FindGame stream is the ticket's wait: one interceptor per concern
 * cost each waiting call ~0.5 KB per concern. Concerns keep their order: metadata hooks run
 * first to last (an async one holds the rest until it answers), then messages pass each
 * onMessage hook in turn, and every concern hears the end once, whoever ended it.
 */
export function hooksInterceptor(concerns: readonly CallConcern[]): ServerInterceptor {
  return (method, call: ServerInterceptingCallInterface) => {
    let ended = false;
    let intercepting: ServerInterceptingCall | undefined;
    const handle: CallHandle = {
      method,
      streaming: method.requestStream || method.responseStream,
      peer: () => call.getPeer(),
      end: (status) => {
        if (!ended) intercepting!.sendStatus(status);
      },
    };
    const hooks: CallHooks[] = [];
    for (const concern of concerns) {
      const h = concern(handle);
      if (h) hooks.push(h);
    }
    if (hooks.length === 0) return passThrough(call);
    const finish = (status: CallStatus | undefined) => {
      if (ended) return;
      ended = true;
      for (const h of hooks) h.onEnd?.(status, handle);
    };
    /** The metadata hooks from `from` on; calls `pass` once all let the call on. */
    const checkMetadata = (metadata: Metadata, from: number, pass: () => void): void => {
      for (let i = from; i < hooks.length; i++) {
        if (ended) return;
        let answer: ReturnType<NonNullable<CallHooks['onMetadata']>>;
        try {
          answer = hooks[i]!.onMetadata?.(metadata, handle);
        } catch {
          return handle.end(UNCHECKED);
        }
        if (isPromise(answer)) {
          answer.then(
            (status) => (status ? handle.end(status) : checkMetadata(metadata, i + 1, pass)),
            () => handle.end(UNCHECKED),
          );
          return;
        }
        if (answer) return handle.end(answer);
      }
      if (!ended) pass();
    };
    intercepting = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => checkMetadata(metadata, 0, () => nextMetadata(metadata)),
          onReceiveMessage: (message, nextMessage) => {
            if (ended) return;
            for (const h of hooks) {
              const refusal = h.onMessage?.(message, handle);
              if (refusal) return handle.end(refusal);
            }
            nextMessage(message);
          },
          onCancel: () => finish(undefined),
        }),
      sendStatus: (status, next) => {
        const bounded = boundedDetails(status);
        finish(bounded);
        next(bounded);
      },
    });
    return intercepting;
  };
}
