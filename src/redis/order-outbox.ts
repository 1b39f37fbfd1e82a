import { nodeKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';
import { entriesOfRead, type StreamEntry } from './stream-reply.js';

export interface Order {
  /** Idempotency key: the same order delivered twice is one entry. */
  readonly orderId: string;
  readonly serverId: string;
  /** The encoded CreateGame / ReserveSeats. */
  readonly payload: string;
}

export interface OutboxEntry extends Order {
  readonly entryId: string;
}

export interface OrderOutboxOptions {
  readonly group?: string;
  /** How long delivered order ids are remembered for deduplication. Default 24 h. */
  readonly rememberMs?: number;
}


/**
 * Orders reach the node holding a server's stream durably (issue 11): one Redis Stream per node
 * read with a consumer group, never trimmed while unacknowledged. Delivery is idempotent by order
 * id; entries are acknowledged only once the server has the order, so a node that dies leaves
 * them pending, and the node that takes over its servers claims them (XAUTOCLAIM) and delivers
 * them again to wherever each server reconnected. The receiving end ignores an order id it has
 * applied, which makes at-least-once delivery exactly once in effect.
 *
 * read() with `blockMs` blocks its connection: give the outbox a client of its own for that.
 */
export class RedisOrderOutbox {
  private readonly group: string;
  private readonly rememberMs: number;

  private constructor(
    private readonly client: RedisClient,
    readonly nodeId: string,
    options: OrderOutboxOptions,
  ) {
    this.group = options.group ?? 'orders';
    this.rememberMs = options.rememberMs ?? 86_400_000;
  }

  static async open(client: RedisClient, nodeId: string, options: OrderOutboxOptions = {}): Promise<RedisOrderOutbox> {
    await defineScripts(client);
    const outbox = new RedisOrderOutbox(client, nodeId, options);
    await outbox.ensureGroup(nodeId);
    return outbox;
  }

  /** Puts the order in `nodeId`'s outbox once; `duplicate` when that order id was there already. */
  async deliver(nodeId: string, order: Order): Promise<{ entryId: string; duplicate: boolean }> {
    const k = nodeKeys(nodeId);
    const [entryId, isNew] = await runScript<[string, number]>(this.client, 'gfOrderDeliver', [k.orders, k.orderIds], [
      order.orderId,
      order.serverId,
      order.payload,
      this.rememberMs,
    ]);
    return { entryId, duplicate: isNew === 0 };
  }

  /** Orders for this node not yet handed to this consumer. */
  async read(count: number, blockMs?: number): Promise<OutboxEntry[]> {
    const key = nodeKeys(this.nodeId).orders;
    const args: (string | number)[] = ['GROUP', this.group, this.nodeId, 'COUNT', count];
    if (blockMs !== undefined) args.push('BLOCK', blockMs);
    return entriesOfRead(await this.client.call('XREADGROUP', ...args, 'STREAMS', key, '>')).map(toEntry);
  }

  /** The server has these orders: done with them (acknowledged and removed from the stream). */
  async ack(entryIds: readonly string[], ofNode: string = this.nodeId): Promise<void> {
    if (entryIds.length === 0) return;
    const key = nodeKeys(ofNode).orders;
    // Sent together: one round trip.
    await Promise.all([this.client.xack(key, this.group, ...entryIds), this.client.xdel(key, ...entryIds)]);
  }

  /**
   * A node died: its orders, pending (read, never acknowledged, idle for `minIdleMs`) or never
   * read, become this node's to deliver again to each server's new node, then ack(…, deadNode).
   */
  async takeOver(deadNodeId: string, minIdleMs: number, count: number): Promise<OutboxEntry[]> {
    const key = nodeKeys(deadNodeId).orders;
    await this.ensureGroup(deadNodeId);
    const [, claimed] = (await this.client.call('XAUTOCLAIM', key, this.group, this.nodeId, minIdleMs, '0-0', 'COUNT', count)) as [
      string,
      StreamEntry[],
    ];
    const unread = entriesOfRead(await this.client.call('XREADGROUP', 'GROUP', this.group, this.nodeId, 'COUNT', count, 'STREAMS', key, '>'));
    return [...claimed, ...unread].map(toEntry);
  }

  private async ensureGroup(nodeId: string): Promise<void> {
    try {
      await this.client.xgroup('CREATE', nodeKeys(nodeId).orders, this.group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
    }
  }
}

function toEntry([entryId, fields]: StreamEntry): OutboxEntry {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  return { entryId, orderId: f.get('order')!, serverId: f.get('server')!, payload: f.get('payload')! };
}
