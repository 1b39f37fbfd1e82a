import type { Log, TicketRecord, TicketStore } from '../../coordinator/ports.js';
import { runScript, type RedisClient } from '../script-set.js';
import { decode } from './relay-codec.js';
import { relayKeys } from './relay-keys.js';

/**
 * Waiting tickets in Redis (the core's TicketStore), written by the matcher owner with its
 * fencing token, so a new owner gives every waiting ticket its place back (`load`) and a stale
 * owner cannot rewrite the line. Writes are fire-and-forget, as the core expects.
 */
export class RelayTicketStore implements TicketStore {
  constructor(
    private readonly client: RedisClient,
    private readonly token: number,
    private readonly onStale: () => void,
    private readonly log: Log,
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
    runScript<number>(this.client, 'gfRelayRecord', [relayKeys.fence, relayKeys.tickets], [this.token, ticketId, record]).then(
      (code) => {
        if (code === -1) this.onStale();
      },
      (error: unknown) => this.log.warn({ ticketId, error: (error as Error).message }, 'matcher: ticket store write failed'),
    );
  }
}
