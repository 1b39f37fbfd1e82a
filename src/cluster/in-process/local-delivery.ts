import { RecentIds } from '../../collections/recent-ids.js';
import type { Delivery, OrderDelivery, OrderSink } from '../ports.js';

/** Order ids remembered per server to drop a repeated delivery; older ones are forgotten. */
const REMEMBERED_ORDER_IDS = 4096;

interface Attached {
  readonly sink: OrderSink;
  /** The oldest id is dropped first. */
  readonly delivered: RecentIds;
}

/** Every game server's stream is on this node: delivery is a direct call. */
export class LocalDelivery implements OrderDelivery {
  private readonly streams = new Map<string, Attached>();

  attach(serverId: string, sink: OrderSink): void {
    const previous = this.streams.get(serverId);
    // A reconnect keeps the ids already delivered: an order is not sent twice to the same server.
    this.streams.set(serverId, { sink, delivered: previous?.delivered ?? new RecentIds(REMEMBERED_ORDER_IDS) });
  }

  detach(serverId: string, sink: OrderSink): void {
    if (this.streams.get(serverId)?.sink === sink) this.streams.delete(serverId);
  }

  deliver(serverId: string, { orderId, order }: Delivery): 'delivered' | 'duplicate' | 'unreachable' {
    const attached = this.streams.get(serverId);
    if (!attached) return 'unreachable';
    if (attached.delivered.has(orderId)) return 'duplicate';
    attached.delivered.add(orderId);
    attached.sink.send(order);
    return 'delivered';
  }
}
