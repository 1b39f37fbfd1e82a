import { factoryKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

export type LeaseKeys = (name: string) => { readonly lease: string; readonly fence: string };

export type LeaseAnswer = { readonly held: true; readonly token: number } | { readonly held: false; readonly retryInMs: number };

/**
 * One matcher per factory at a time (issue 11): a lease per factory (`SET NX PX`) with a fencing
 * token (`INCR`). The holder passes its token to every write (ticket-propose, ticket-assign,
 * ticket-requeue-expired); a node that wakes from a pause past its lease holds an older token
 * than the new owner's, so those scripts refuse its writes.
 */
export class RedisFactoryLease {
  private constructor(
    private readonly client: RedisClient,
    readonly nodeId: string,
    readonly leaseMs: number,
    private readonly keysOf: LeaseKeys,
  ) {}

  /** `keysOf` names a lease's keys; by default the factory's own (`gf:{<factory>}:lease`). */
  static async open(client: RedisClient, nodeId: string, leaseMs: number, keysOf: LeaseKeys = factoryKeys): Promise<RedisFactoryLease> {
    if (!(leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${leaseMs}`);
    await defineScripts(client);
    return new RedisFactoryLease(client, nodeId, leaseMs, keysOf);
  }

  /** Takes the factory if free (a new token) or extends it if already ours (the same token). */
  async acquire(factory: string): Promise<LeaseAnswer> {
    const k = this.keysOf(factory);
    const [held, value] = await runScript<[number, number]>(this.client, 'gfLeaseAcquire', [k.lease, k.fence], [this.nodeId, this.leaseMs]);
    return held === 1 ? { held: true, token: value } : { held: false, retryInMs: Math.max(0, value) };
  }

  /** False when the lease was lost (expired and maybe taken): stop acting as the owner. */
  async renew(factory: string, token: number): Promise<boolean> {
    const k = this.keysOf(factory);
    return (await runScript<number>(this.client, 'gfLeaseRenew', [k.lease], [this.nodeId, token, this.leaseMs])) === 1;
  }

  async release(factory: string, token: number): Promise<boolean> {
    const k = this.keysOf(factory);
    return (await runScript<number>(this.client, 'gfLeaseRelease', [k.lease], [this.nodeId, token])) === 1;
  }
}
