/**
 * Estimated wait shown to a queued client: the requests ahead of it (and itself) divided by how
 * fast the factory has been starting games lately. Undefined when nothing has started recently:
 * showing "unknown" is more honest than a made-up number.
 */
export function estimateWaitMs(position: number, recentStartsPerSecond: number): number | undefined {
  if (!(recentStartsPerSecond > 0) || !Number.isFinite(recentStartsPerSecond)) return undefined;
  return Math.ceil((Math.max(0, position) / recentStartsPerSecond) * 1000);
}
