import { factoryKeys } from './keys.js';
import type { RedisClient } from './script-set.js';

/**
 * Original priority, cluster-wide: one counter per factory (a ticket's priority is compared only
 * within its factory's line), so ticket-intake can take it in the same script as the ticket.
 * A single INCR is atomic already: no script.
 */
export class RedisArrivalSequence {
  constructor(private readonly client: RedisClient) {}

  next(factory: string): Promise<number> {
    return this.client.incr(factoryKeys(factory).arrival);
  }
}
