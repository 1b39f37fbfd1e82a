/**
 * The longest wait worth telling a client (a day). A decaying rate of starts never reaches zero:
 * five minutes after the last start it still reads a few millionths of a start a second, and a
 * queued client would have been told a wait of months, past the wire's uint32 (it failed to
 * serialize and ended the FindGames stream of every ticket on it with INTERNAL).
 */
export const MAX_WAIT_ESTIMATE_MS = 86_400_000;

/**
 * Estimated wait shown to a queued client: the requests ahead of it (and itself) divided by how
 * fast the factory has been starting games lately. Undefined when nothing has started recently
 * (or so rarely that the wait would be over a day): showing "unknown" is more honest than a
 * made-up number.
 */
export function estimateWaitMs(position: number, recentStartsPerSecond: number): number | undefined {
  if (!(recentStartsPerSecond > 0) || !Number.isFinite(recentStartsPerSecond)) return undefined;
  const ms = Math.ceil((Math.max(0, position) / recentStartsPerSecond) * 1000);
  return ms <= MAX_WAIT_ESTIMATE_MS ? ms : undefined;
}
