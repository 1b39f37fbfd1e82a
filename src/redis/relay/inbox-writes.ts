import { runBatchScript, type RedisClient } from '../script-set.js';
import type { RelayKeys } from './relay-keys.js';

/** A request waiting for the tick's call. */
interface Forward {
  readonly keys: readonly string[];
  readonly op: 'F' | 'M';
  readonly message: string;
  /** The inbox: on a Redis Cluster, requests go out per inbox (a shard's keys share one slot). */
  readonly inbox: string;
  resolve(kept: string): void;
  reject(error: unknown): void;
}

/**
 * A sharded node's requests to the owners of shards it does not serve (finds, cancels, abandons,
 * game servers' hellos, events and byes), gathered over one turn of the event loop and written
 * in one call of `relay-forward-n` in the order they were made (on a Redis Cluster, one call per
 * shard: its keys share a slot), instead of one script call or XADD each. Only inbox writes are
 * gathered, all of them in one queue, so each inbox sees a node's requests in the order the node
 * made them; every other command on the connection goes out as before (ioredis' auto-pipelining,
 * which held back every command, reordered them against the owner's commit).
 */
export class InboxWrites {
  private pending: Forward[] = [];

  constructor(private readonly client: RedisClient) {}

  /** The kept assignment (JSON) when the ticket is assigned already, else undefined: forwarded. */
  async forwardFind(keys: RelayKeys, ticketId: string, message: string): Promise<string | undefined> {
    const kept = await this.add([keys.assigned(ticketId), keys.inbox], 'F', message, keys.inbox);
    return kept === '' ? undefined : kept;
  }

  async send(keys: RelayKeys, message: string): Promise<void> {
    await this.add([keys.inbox], 'M', message, keys.inbox);
  }

  private add(keys: readonly string[], op: 'F' | 'M', message: string, inbox: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending.push({ keys, op, message, inbox, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (!this.client.isCluster) return this.call(batch);
    const byInbox = new Map<string, Forward[]>();
    for (const f of batch) {
      const group = byInbox.get(f.inbox);
      if (group) group.push(f);
      else byInbox.set(f.inbox, [f]);
    }
    for (const group of byInbox.values()) this.call(group);
  }

  private call(batch: readonly Forward[]): void {
    const keys = batch.flatMap((f) => f.keys);
    const args = batch.flatMap((f) => [f.op, f.message]);
    runBatchScript<string[]>(this.client, 'gfRelayForward', keys, args).then(
      (answers) => batch.forEach((f, i) => f.resolve(answers[i] ?? '')),
      (error: unknown) => batch.forEach((f) => f.reject(error)),
    );
  }
}
