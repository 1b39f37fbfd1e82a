import type { Delivery, OrderDelivery, OrderSink } from '../cluster/ports.js';
import type { ServerOrder } from '../coordinator/messages.js';
import { routeKeys } from './keys.js';
import { RedisOrderOutbox, type OutboxEntry } from './order-outbox.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';

export interface RedisOrderDeliveryOptions {
  /** How long one blocking read of the outbox waits (ms); also how long close() may take. */
  readonly blockMs?: number;
  readonly onError?: (error: Error) => void;
}

/**
 * The OrderDelivery port across nodes: a route per game server (`gf:{routes}:servers`, server ->
 * node holding its stream) and an outbox stream per node (RedisOrderOutbox). deliver() looks up
 * the route and appends the order once per order id; each node reads its own outbox with a
 * consumer group and hands each order to the stream attached here, acknowledging only then.
 * An order whose server moved to another node meanwhile is forwarded there under the same id.
 */
export class RedisOrderDelivery implements OrderDelivery {
  private readonly sinks = new Map<string, OrderSink>();
  private running = true;
  private readonly loop: Promise<void>;

  private constructor(
    private readonly client: RedisClient,
    private readonly reader: RedisClient,
    private readonly writer: RedisOrderOutbox,
    private readonly inbox: RedisOrderOutbox,
    readonly nodeId: string,
    private readonly options: RedisOrderDeliveryOptions,
  ) {
    this.loop = this.readLoop();
  }

  /** `client` for commands; a second connection is made for the blocking outbox read. */
  static async open(client: RedisClient, nodeId: string, options: RedisOrderDeliveryOptions = {}): Promise<RedisOrderDelivery> {
    await defineScripts(client);
    // A second connection: XREADGROUP BLOCK holds its connection while it waits.
    const reader = (client as { duplicate(): RedisClient }).duplicate();
    const writer = await RedisOrderOutbox.open(client, nodeId);
    const inbox = await RedisOrderOutbox.open(reader, nodeId);
    return new RedisOrderDelivery(client, reader, writer, inbox, nodeId, options);
  }

  async attach(serverId: string, sink: OrderSink): Promise<void> {
    this.sinks.set(serverId, sink);
    await this.client.hset(routeKeys.servers, serverId, this.nodeId);
  }

  async detach(serverId: string, sink: OrderSink): Promise<void> {
    if (this.sinks.get(serverId) !== sink) return;
    this.sinks.delete(serverId);
    await runScript(this.client, 'gfRouteDetach', [routeKeys.servers], [serverId, this.nodeId]);
  }

  async deliver(serverId: string, { orderId, order }: Delivery): Promise<'delivered' | 'duplicate' | 'unreachable'> {
    const node = await this.client.hget(routeKeys.servers, serverId);
    if (node === null) return 'unreachable';
    const { duplicate } = await this.writer.deliver(node, { orderId, serverId, payload: JSON.stringify(order) });
    return duplicate ? 'duplicate' : 'delivered';
  }

  /** Stops reading; orders still in this node's outbox stay there for whoever takes over. */
  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await this.loop;
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      try {
        const entries = await this.inbox.read(100, this.options.blockMs ?? 1_000);
        if (entries.length > 0) await this.hand(entries);
      } catch (error) {
        if (!this.running) return;
        this.options.onError?.(error as Error);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private async hand(entries: readonly OutboxEntry[]): Promise<void> {
    for (const entry of entries) {
      const sink = this.sinks.get(entry.serverId);
      if (sink) sink(JSON.parse(entry.payload) as ServerOrder);
      else {
        const node = await this.client.hget(routeKeys.servers, entry.serverId);
        if (node !== null && node !== this.nodeId) await this.writer.deliver(node, entry);
      }
    }
    await this.writer.ack(entries.map((e) => e.entryId));
  }
}
