/**
 * A request the coordinator refuses, with the gRPC status it maps to. The message names the
 * field and the problem. The core raises these; only the transport knows gRPC.
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'RESOURCE_EXHAUSTED'
  | 'DEADLINE_EXCEEDED'
  | 'UNAVAILABLE'
  | 'CANCELLED'
  | 'ABORTED'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  /** Only the transport's mapping of an unexpected failure (a bug); the core never raises it. */
  | 'INTERNAL';

export class MatchmakingError extends Error {
  override readonly name = 'MatchmakingError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For RESOURCE_EXHAUSTED: when to retry, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export const invalidArgument = (field: string, problem: string) =>
  new MatchmakingError('INVALID_ARGUMENT', `${field}: ${problem}`);
