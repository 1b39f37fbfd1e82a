import { status } from '@grpc/grpc-js';

export type SecurityCode = 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'RESOURCE_EXHAUSTED';

/**
 * A call refused by the security layer (who you are, what you may do, how much). The message names
 * what is missing or which limit was hit; the interceptor chain turns it into a gRPC status.
 */
export class SecurityError extends Error {
  override readonly name = 'SecurityError';
  constructor(
    readonly code: SecurityCode,
    message: string,
    /** For RESOURCE_EXHAUSTED: when a retry can succeed, in ms (sent as `retry-after-ms`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  get grpcCode(): number {
    return status[this.code];
  }
}

export const unauthenticated = (message: string) => new SecurityError('UNAUTHENTICATED', message);
export const permissionDenied = (message: string) => new SecurityError('PERMISSION_DENIED', message);
export const resourceExhausted = (message: string, retryAfterMs?: number) =>
  new SecurityError('RESOURCE_EXHAUSTED', message, retryAfterMs);
