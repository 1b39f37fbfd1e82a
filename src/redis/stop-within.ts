import type { Log } from '../coordinator/ports.js';
import type { RedisClient } from './script-set.js';

/**
 * A node's clean stop (its leases released, its heartbeat and answers stream deleted), given at
 * most `ms`. A frozen Redis (SIGSTOP, a stalled host, a partition that drops packets) accepts
 * every call and answers none, and ioredis has no per-command timeout, so without a bound a
 * stopping node waited on it until the CLI's last-resort exit. Past `ms` every connection is
 * dropped, which fails the calls still waiting, and the stop returns; what the clean stop would
 * have removed lapses on its own (leases and heartbeats within a lease, an answers stream within
 * an hour), as after a crash.
 */
export async function stopWithin(
  clean: () => Promise<void>,
  ms: number,
  connections: readonly RedisClient[],
  log: Log,
  node: string,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const done = clean().then(
    () => 'done' as const,
    (error: unknown) => {
      log.warn({ node, error: (error as Error).message }, 'cluster node: clean stop failed; its leases and heartbeat lapse on their own');
      return 'done' as const;
    },
  );
  const outcome = await Promise.race([done, late]);
  clearTimeout(timer);
  if (outcome === 'done') return;
  log.warn({ node, waitedMs: ms }, 'cluster node: redis did not answer the stop in time; connections dropped, its leases and heartbeat lapse on their own');
  for (const connection of connections) connection.disconnect();
}
