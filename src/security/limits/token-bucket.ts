/** A refilling allowance: `perSecond` tokens a second, at most `burst` saved up. */
export interface BucketRate {
  readonly perSecond: number;
  readonly burst: number;
}

export interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

export const fullBucket = (rate: BucketRate, nowMs: number): Bucket => ({ tokens: rate.burst, updatedAtMs: nowMs });

/**
 * Takes `cost` tokens if there are enough (pure arithmetic on the bucket; clock injected).
 * Refused: how long until there will be, for a `retry-after-ms` hint.
 */
export function take(bucket: Bucket, rate: BucketRate, nowMs: number, cost = 1): { ok: true } | { ok: false; retryAfterMs: number } {
  refill(bucket, rate, nowMs);
  if (bucket.tokens >= cost) {
    bucket.tokens -= cost;
    return { ok: true };
  }
  const missing = cost - bucket.tokens;
  return { ok: false, retryAfterMs: rate.perSecond > 0 ? Math.ceil((missing / rate.perSecond) * 1000) : Number.MAX_SAFE_INTEGER };
}

export function refill(bucket: Bucket, rate: BucketRate, nowMs: number): void {
  const elapsed = Math.max(0, nowMs - bucket.updatedAtMs);
  bucket.tokens = Math.min(rate.burst, bucket.tokens + (elapsed * rate.perSecond) / 1000);
  bucket.updatedAtMs = Math.max(bucket.updatedAtMs, nowMs);
}

export const isFull = (bucket: Bucket, rate: BucketRate, nowMs: number): boolean => {
  refill(bucket, rate, nowMs);
  return bucket.tokens >= rate.burst;
};
