import type { Metadata } from '@grpc/grpc-js';

/**
 * The coordinator's `retry-after-ms` hint (a draining node, a full queue), from a status's
 * metadata; undefined when absent or not a number.
 */
export function retryAfterMs(metadata?: Metadata): number | undefined {
  const raw = metadata?.get('retry-after-ms')[0];
  const value = Number(typeof raw === 'string' ? raw : raw?.toString());
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
