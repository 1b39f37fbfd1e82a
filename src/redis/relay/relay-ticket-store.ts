import type { TicketRecord, TicketStore } from '../../coordinator/ports.js';
import type { RedisClient } from '../script-set.js';
import type { FencedBatch } from './fenced-batch.js';
import { decode } from './relay-codec.js';
import { relayKeys } from './relay-keys.js';

/**
 * Waiting tickets in Redis (the core's TicketStore), written by the matcher owner with its
 * fencing token, so a new owner gives every waiting ticket its place back (`load`) and a stale
 * owner cannot rewrite the line. Writes are fire-and-forget, as the core expects, and go out with the
 * rest of the owner's step (FencedBatch).
 */
export class RelayTicketStore implements TicketStore {
  constructor(
    private readonly batch: FencedBatch,
    private readonly token: number,
  ) {}

  static async load(client: RedisClient): Promise<TicketRecord[]> {
    const all = await client.hgetall(relayKeys.tickets);
    return Object.values(all).map((json) => decode(json) as unknown as TicketRecord);
  }

  save(record: TicketRecord): void {
    this.write(record.request.ticketId, JSON.stringify(record, (_, v: unknown) => (v instanceof Map ? { $m: [...v] } : v)));
  }

  remove(ticketId: string): void {
    this.write(ticketId, '');
  }

  private write(ticketId: string, record: string): void {
    this.batch.add('gfRelayRecord', [relayKeys.fence, relayKeys.tickets, this.token, ticketId, record], `ticket ${ticketId}`);
  }
}
