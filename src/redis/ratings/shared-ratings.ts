import type { Log } from '../../coordinator/ports.js';
import type { PlayerRating } from '../../ratings/rating-system.js';
import { connectRedis } from '../connect.js';
import { waitReady } from '../relay/redis-node.js';
import { RedisRatingStore } from './redis-rating-store.js';

/** A cluster node's ratings: the store every node shares, on a connection of its own, and how to let it go. */
export interface SharedRatings {
  readonly store: RedisRatingStore;
  close(): Promise<void>;
}

/**
 * Opens the ratings of a `--redis` node: every node records and reads results in the same Redis,
 * so a result reported through one node is seen on all (within the mirror's follow period).
 */
export async function openSharedRatings(
  url: string,
  options: { readonly ladders: readonly string[]; readonly standing: (ladder: string, rating: PlayerRating) => number; readonly log: Log },
): Promise<SharedRatings> {
  const client = connectRedis(url);
  client.on('error', (error: Error) => options.log.debug({ error: error.message }, 'redis connection error (ratings)'));
  await waitReady(client, options.log, url);
  const store = await RedisRatingStore.open(client, { ladders: options.ladders, standing: options.standing });
  return {
    store,
    async close() {
      // Dropped first: the mirror's read in flight would wait on a frozen Redis for ever (dropping
      // it fails that read). Writes in flight were never waited for: disconnect does not wait.
      client.disconnect();
      await store.close();
    },
  };
}
