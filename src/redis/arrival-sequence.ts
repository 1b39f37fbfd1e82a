import type { ArrivalSequence } from '../cluster/ports.js';
import { arrivalKeys, factoryKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

/**
 * Original priority, cluster-wide (the ArrivalSequence port): one counter in Redis, so numbers
 * are unique and increasing across every node. `forFactory` gives the per-factory counter that
 * ticket-intake reads in the same script as the ticket. `next` is a single INCR (atomic, no
 * script); `observe` moves the counter past a restored number in one script.
 */
export class RedisArrivalSequence implements ArrivalSequence {
  private constructor(
    private readonly client: RedisClient,
    readonly key: string,
  ) {}

  static async open(client: RedisClient, key: string = arrivalKeys.global): Promise<RedisArrivalSequence> {
    await defineScripts(client);
    return new RedisArrivalSequence(client, key);
  }

  static forFactory(client: RedisClient, factory: string): Promise<RedisArrivalSequence> {
    return RedisArrivalSequence.open(client, factoryKeys(factory).arrival);
  }

  next(): Promise<number> {
    return this.client.incr(this.key);
  }

  async observe(arrival: number): Promise<void> {
    if (!Number.isSafeInteger(arrival) || arrival < 0) throw new RangeError(`arrival must be an integer >= 0, got ${arrival}`);
    await runScript(this.client, 'gfArrivalObserve', [this.key], [arrival]);
  }
}
