/** Where a status's metadata is read: grpc-js' Metadata, or what the browser client makes of Connect's. */
export interface StatusMetadata {
  get(key: string): readonly (string | Uint8Array)[];
}

/**
 * The coordinator's `retry-after-ms` hint (a draining node, a full queue), from a status's
 * metadata; undefined when absent or not a number.
 */
export function retryAfterMs(metadata?: StatusMetadata): number | undefined {
  const raw = metadata?.get('retry-after-ms')[0];
  const value = Number(typeof raw === 'string' ? raw : raw?.toString());
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
