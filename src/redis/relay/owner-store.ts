import type { TicketRecord } from '../../coordinator/ports.js';
import { RedisFactoryLease, type LeaseAnswer } from '../factory-lease.js';
import { runBatchScript, type RedisClient } from '../script-set.js';
import { entriesOfRead, type StreamEntry } from '../stream-reply.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { decode, decodeEntry, decodeRecord, encode, encodeRecord, type InboxMessage, type OutMessage } from './relay-codec.js';
import { OWNER_GROUP, relayKeys, type RelayKeys } from './relay-keys.js';

/** One request in the owner's inbox, with its stream id (what acknowledges it). */
export interface InboxEntry {
  readonly id: string;
  readonly message: InboxMessage;
}

/** A write of the owner's step; every one is fenced by the owner's token. */
export type OwnerWrite =
  /** An answer to a node (an assignment is also kept for a client that resumes elsewhere). */
  | { readonly kind: 'answer'; readonly node: string; readonly message: OutMessage }
  /** A waiting ticket stored (its place kept for a new owner), or removed when `record` is undefined. */
  | { readonly kind: 'record'; readonly ticketId: string; readonly record: TicketRecord | undefined }
  /** Requests applied: acknowledged and removed from the inbox. */
  | { readonly kind: 'ack'; readonly entryIds: readonly string[] }
  /** An assignment of a call answered in process (the owner's own node): only kept for a client that resumes elsewhere. */
  | { readonly kind: 'kept'; readonly ticketId: string; readonly message: OutMessage };

/**
 * What the matcher owner reads and writes in Redis, as a few typed calls (so a test can run the
 * owner on a fake): its lease, the waiting tickets, the inbox (read with a consumer group, so
 * what a dead owner read and never acknowledged is claimed by the next), the heartbeats of the
 * nodes its servers are on, and `commit`: one step's writes, all or none.
 */
export interface OwnerStore {
  /** Takes the matcher lease if free or still this node's from a term it left: always a new term, a new fencing token. */
  acquire(): Promise<LeaseAnswer>;
  /** False when the lease was lost (it ran out, and maybe another node took it). */
  renew(token: number): Promise<boolean>;
  release(token: number): Promise<void>;
  /** The waiting tickets the last owner stored. */
  loadTickets(): Promise<TicketRecord[]>;
  /** The id of the newest request in the inbox now ('0-0' when it is empty): what was queued before this term. */
  inboxEnd(): Promise<string>;
  /** Requests an owner read and never acknowledged, idle `minIdleMs` or more, now this node's; page by `cursor` ('0-0' first, and when done). */
  claimPending(minIdleMs: number, cursor: string): Promise<{ readonly next: string; readonly entries: readonly InboxEntry[] }>;
  /** New requests, waiting up to `blockMs` for some. */
  readInbox(count: number, blockMs: number): Promise<InboxEntry[]>;
  /** The assignments kept for these tickets (an owner assigned them), read before this node's finds are taken in process. */
  keptAnswers(ticketIds: readonly string[]): Promise<(OutMessage | undefined)[]>;
  /** One step's writes in order, in one transaction: 'refused' (nothing written) unless `token` is the newest. */
  commit(token: number, writes: readonly OwnerWrite[]): Promise<'written' | 'refused'>;
  /** The nodes among these whose heartbeat lapsed. */
  lapsed(nodes: readonly string[]): Promise<string[]>;
  /** Ends a blocking read at once (the node is closing). */
  interrupt(): void;
}

/** How long a dead node's unread answers and a kept assignment stay in Redis. */
const OUT_KEPT_MS = 3_600_000;

/** OwnerStore on Redis: the relay's keys (`{relay}`, one slot) and its fenced scripts, a step's in one call (`relay-commit-n`). */
export class RedisOwnerStore implements OwnerStore {
  private constructor(
    private readonly client: RedisClient,
    /** A connection of its own: the blocking inbox read holds it. */
    private readonly reader: RedisClient,
    private readonly nodeId: string,
    private readonly lease: RedisFactoryLease,
    /** How long an assignment is kept for a client resuming on another node (the ticket TTL). */
    private readonly assignmentKeptMs: number,
    private readonly keys: RelayKeys,
    /** Where the step's commits and kept reads go (a sharded node's seats share one auto-pipelined connection). */
    private readonly writer: RedisClient,
  ) {}

  /**
   * `keys`: the single matcher's relay (default) or one shard's. `writer`: the connection for
   * commits and kept reads, the client's by default; one whose every command is auto-pipelined
   * keeps them in order (ioredis sends some commands, MULTI among them, at once: never mix).
   */
  static async open(
    client: RedisClient,
    reader: RedisClient,
    nodeId: string,
    leaseMs: number,
    assignmentKeptMs: number,
    keys: RelayKeys = relayKeys,
    writer: RedisClient = client,
  ): Promise<RedisOwnerStore> {
    const lease = await RedisFactoryLease.open(client, nodeId, leaseMs, () => ({ lease: keys.lease, fence: keys.fence }));
    await createGroup(client, keys);
    return new RedisOwnerStore(client, reader, nodeId, lease, assignmentKeptMs, keys, writer);
  }

  acquire(): Promise<LeaseAnswer> {
    return this.lease.acquire('matcher');
  }

  renew(token: number): Promise<boolean> {
    return this.lease.renew('matcher', token);
  }

  async release(token: number): Promise<void> {
    await this.lease.release('matcher', token);
  }

  async loadTickets(): Promise<TicketRecord[]> {
    const all = await this.client.hgetall(this.keys.tickets);
    return Object.values(all).map(decodeRecord);
  }

  async inboxEnd(): Promise<string> {
    const [newest] = (await this.client.xrevrange(this.keys.inbox, '+', '-', 'COUNT', 1)) as StreamEntry[];
    return newest?.[0] ?? '0-0';
  }

  async claimPending(minIdleMs: number, cursor: string) {
    const [next, claimed] = (await this.client.call('XAUTOCLAIM', this.keys.inbox, OWNER_GROUP, this.nodeId, minIdleMs, cursor, 'COUNT', 500)) as [string, StreamEntry[]];
    // A claimed entry deleted meanwhile comes back with no fields.
    return { next, entries: claimed.filter((e) => e[1] !== null).map(inboxEntry) };
  }

  async readInbox(count: number, blockMs: number): Promise<InboxEntry[]> {
    try {
      const reply = await this.reader.call('XREADGROUP', 'GROUP', OWNER_GROUP, this.nodeId, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.keys.inbox, '>');
      return entriesOfRead(reply).map(inboxEntry);
    } catch (error) {
      // A Redis restarted without persistence lost the group with the stream: make it again.
      if (!(error as Error).message.startsWith('NOGROUP')) throw error;
      await createGroup(this.client, this.keys);
      return [];
    }
  }

  async keptAnswers(ticketIds: readonly string[]): Promise<(OutMessage | undefined)[]> {
    // One slot (the shard's tag): one MGET, a Redis Cluster included.
    const kept = await this.writer.mget(ticketIds.map((id) => this.keys.assigned(id)));
    return kept.map((k) => (k === null ? undefined : decode<OutMessage>(k)));
  }

  async commit(token: number, writes: readonly OwnerWrite[]): Promise<'written' | 'refused'> {
    const { keys, args } = this.commitOf(writes);
    const code = await runBatchScript<number>(this.writer, 'gfRelayCommit', keys, [token, OWNER_GROUP, OUT_KEPT_MS, this.assignmentKeptMs, ...args]);
    return code === -1 ? 'refused' : 'written';
  }

  lapsed(nodes: readonly string[]): Promise<string[]> {
    return NodeHeartbeat.lapsed(this.client, nodes);
  }

  interrupt(): void {
    this.reader.disconnect();
  }

  /**
   * The step's writes as `relay-commit-n`'s keys and arguments (its header lists them): one
   * fenced call, each other key passed once and named by its index.
   */
  private commitOf(writes: readonly OwnerWrite[]): { keys: string[]; args: (string | number)[] } {
    const keys = [this.keys.fence, this.keys.tickets, this.keys.inbox];
    const index = new Map<string, number>();
    const key = (name: string): number => {
      let at = index.get(name);
      if (at === undefined) {
        at = keys.push(name); // KEYS are 1-based in Lua
        index.set(name, at);
      }
      return at;
    };
    const args: (string | number)[] = [];
    for (const write of writes) {
      switch (write.kind) {
        case 'answer': {
          const out = key(this.keys.out(write.node));
          const message = encode(write.message);
          if (write.message.k === 'update' && write.message.update.kind === 'assigned') args.push('A', out, key(this.keys.assigned(write.message.ticketId)), message);
          else args.push('S', out, message);
          break;
        }
        case 'record':
          args.push('R', write.ticketId, write.record === undefined ? '' : encodeRecord(write.record));
          break;
        case 'ack':
          args.push('C', write.entryIds.length);
          for (const id of write.entryIds) args.push(id);
          break;
        case 'kept':
          args.push('K', key(this.keys.assigned(write.ticketId)), encode(write.message));
          break;
      }
    }
    return { keys, args };
  }
}

async function createGroup(client: RedisClient, keys: RelayKeys): Promise<void> {
  await client.xgroup('CREATE', keys.inbox, OWNER_GROUP, '0', 'MKSTREAM').catch((e: Error) => {
    if (!e.message.startsWith('BUSYGROUP')) throw e;
  });
}

function inboxEntry([id, fields]: StreamEntry): InboxEntry {
  return { id, message: decodeEntry<InboxMessage>(fields[1]) };
}

export { encodeRecord } from './relay-codec.js';
