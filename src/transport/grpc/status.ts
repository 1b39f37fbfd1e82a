import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { MatchmakingError } from '../../errors/index.js';

/** A core error as a gRPC status; anything else is an INTERNAL error, logged by the caller. */
export function toServiceError(error: unknown): Partial<ServiceError> {
  if (error instanceof MatchmakingError) {
    const metadata = new Metadata();
    if (error.retryAfterMs !== undefined) metadata.set('retry-after-ms', String(error.retryAfterMs));
    return { code: status[error.code], details: error.message, metadata };
  }
  return { code: status.INTERNAL, details: 'internal error' };
}

export function statusCode(error: unknown): number {
  return error instanceof MatchmakingError ? status[error.code] : status.INTERNAL;
}
