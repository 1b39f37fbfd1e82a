import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { MatchmakingError } from '../../errors/index.js';

/**
 * The one mapping of errors to gRPC status codes, for every method and for FindGames' per-ticket
 * `error` updates alike (documented in proto/gamefactory/v1/matchmaker.proto):
 * a core refusal keeps its code; anything else is a bug, INTERNAL, logged by the caller.
 */
export function asMatchmakingError(error: unknown): MatchmakingError {
  return error instanceof MatchmakingError ? error : new MatchmakingError('INTERNAL', 'internal error');
}

/** A core error as a gRPC status. */
export function toServiceError(error: unknown): Partial<ServiceError> {
  const e = asMatchmakingError(error);
  const metadata = new Metadata();
  if (e.retryAfterMs !== undefined) metadata.set('retry-after-ms', String(e.retryAfterMs));
  return { code: status[e.code], details: e.message, metadata };
}

export function statusCode(error: unknown): number {
  return status[asMatchmakingError(error).code];
}
