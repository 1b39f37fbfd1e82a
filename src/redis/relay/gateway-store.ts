import { runScript, type RedisClient } from '../script-set.js';
import { entriesOfRead } from '../stream-reply.js';
import type { InboxWrites } from './inbox-writes.js';
import type { NodeHeartbeat } from './node-heartbeat.js';
import { decode, decodeEntry, encode, type InboxMessage, type OutMessage } from './relay-codec.js';
import { relayKeys, type RelayKeys } from './relay-keys.js';

/** One answer on this node's out stream, with its stream id (where reading goes on from). */
export interface OutEntry {
  readonly id: string;
  readonly message: OutMessage;
}

/**
 * What a node's gateway reads and writes in Redis, as a few typed calls (so a test can run it on
 * a fake): requests to the owner's inbox, its own out stream of answers, the fencing token (which
 * moves when the owner changes) and its heartbeat.
 */
export interface GatewayStore {
  /** False while Redis is unreachable: calls are answered UNAVAILABLE at once. */
  readonly reachable: boolean;
  /** How the connection stands, for the UNAVAILABLE message. */
  readonly status: string;
  /** Forwards a find, unless the ticket's assignment is kept: then that is the answer (one round trip). */
  forwardFind(ticketId: string, message: InboxMessage): Promise<OutMessage | undefined>;
  send(message: InboxMessage): Promise<void>;
  /** This node's answers after `after` ('0-0' first), waiting up to `blockMs` for some (0: not at all). */
  readAnswers(after: string, blockMs: number): Promise<OutEntry[]>;
  /** Answers up to `id` are read: they go. */
  trimAnswers(id: string): Promise<void>;
  /** The current fencing token: it moves when another node takes the matcher. */
  fence(): Promise<string | null>;
  /** Extends this node's heartbeat; false when it had lapsed (it is set again). */
  renewHeartbeat(): Promise<boolean>;
  /** Ends a blocking read at once (the node is closing). */
  interrupt(): void;
  /** This node leaves: its out stream and heartbeat go. */
  leave(): Promise<void>;
}

/**
 * Readers already told to disconnect. On one Redis every shard's gateway of a sharded node reads
 * through the node's one answer reader (NodeAnswers), and each ioredis disconnect adds a close
 * listener to its socket: 64 of them printed Node's MaxListenersExceededWarning at every stop.
 */
const interrupted = new WeakSet<RedisClient>();

/** GatewayStore on Redis. */
export class RedisGatewayStore implements GatewayStore {
  constructor(
    private readonly client: RedisClient,
    /** A connection of its own: the blocking read of the out stream holds it. */
    private readonly reader: RedisClient,
    private readonly nodeId: string,
    private readonly heartbeat: NodeHeartbeat,
    /** The single matcher's relay (default) or one shard's. */
    private readonly keys: RelayKeys = relayKeys,
    /** Where the fence is known without a Redis call (a sharded node's ShardKeeper reads every shard's term each tick). */
    private readonly knownFence?: () => string | null,
    /** A sharded node's requests of a tick, to every shard's inbox, in one call (absent: one call each). */
    private readonly inboxWrites?: InboxWrites,
  ) {}

  get reachable(): boolean {
    return this.client.status === 'ready';
  }

  get status(): string {
    return this.client.status;
  }

  async forwardFind(ticketId: string, message: InboxMessage): Promise<OutMessage | undefined> {
    const kept = this.inboxWrites
      ? await this.inboxWrites.forwardFind(this.keys, ticketId, encode(message))
      : await runScript<string | null>(this.client, 'gfRelayFind', [this.keys.assigned(ticketId), this.keys.inbox], [encode(message)]);
    return kept === null || kept === undefined ? undefined : decode<OutMessage>(kept);
  }

  async send(message: InboxMessage): Promise<void> {
    if (this.inboxWrites) await this.inboxWrites.send(this.keys, encode(message));
    else await this.client.xadd(this.keys.inbox, '*', 'm', encode(message));
  }

  async readAnswers(after: string, blockMs: number): Promise<OutEntry[]> {
    // Not waiting: on the command connection, since the reader may be held by a blocked read (and BLOCK 0 waits forever).
    const reply =
      blockMs > 0
        ? await this.reader.call('XREAD', 'COUNT', 500, 'BLOCK', blockMs, 'STREAMS', this.keys.out(this.nodeId), after)
        : await this.client.call('XREAD', 'COUNT', 500, 'STREAMS', this.keys.out(this.nodeId), after);
    return entriesOfRead(reply).map(([id, fields]) => ({ id, message: decodeEntry<OutMessage>(fields[1]) }));
  }

  async trimAnswers(id: string): Promise<void> {
    await this.client.xtrim(this.keys.out(this.nodeId), 'MINID', id);
  }

  fence(): Promise<string | null> {
    if (this.knownFence) return Promise.resolve(this.knownFence());
    return this.client.get(this.keys.fence);
  }

  renewHeartbeat(): Promise<boolean> {
    return this.heartbeat.renew();
  }

  interrupt(): void {
    if (interrupted.has(this.reader)) return;
    interrupted.add(this.reader);
    this.reader.disconnect();
  }

  async leave(): Promise<void> {
    await Promise.all([this.client.del(this.keys.out(this.nodeId)), this.heartbeat.stop()]);
  }
}
