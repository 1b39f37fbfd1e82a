import { leaseKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

export type LeaseKeys = (name: string) => { readonly lease: string; readonly fence: string };

export type LeaseAnswer = { readonly held: true; readonly token: number } | { readonly held: false; readonly retryInMs: number };

/**
 * One holder at a time of what a lease names (the matcher today; a shard of factories each when
 * they are split between owners): `SET NX PX` with a fencing token (`INCR`) per acquisition. The
 * holder passes its token to every write (the relay's scripts check it with
 * `includes/owner-fence`); a node that wakes from a pause past its lease holds an older token than
 * the new owner's, so those scripts refuse its writes.
 */
export class RedisFactoryLease {
  private constructor(
    private readonly client: RedisClient,
    readonly nodeId: string,
    readonly leaseMs: number,
    private readonly keysOf: LeaseKeys,
  ) {}

  /** `keysOf` names a lease's keys; by default its own slot (`gf:{<name>}:lease`). */
  static async open(client: RedisClient, nodeId: string, leaseMs: number, keysOf: LeaseKeys = leaseKeys): Promise<RedisFactoryLease> {
    if (!(leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${leaseMs}`);
    await defineScripts(client);
    return new RedisFactoryLease(client, nodeId, leaseMs, keysOf);
  }

  /** Takes the factory if free or still ours from a term we left: always a new term, a new token (renew extends one). */
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
