import { factoryKeys } from './keys.js';
import { defineScripts, runScript, type RedisClient } from './script-set.js';
import { entriesOfRead, type StreamEntry } from './stream-reply.js';

export type TicketState = 'waiting' | 'proposed' | 'assigned' | 'cancelled';

export interface TicketIntake {
  /** False when the ticket id was known: a resume, with its stored state. */
  readonly created: boolean;
  readonly state: TicketState;
  /** Original priority (the factory's arrival sequence). */
  readonly priority: number;
  readonly assignment: string | undefined;
}

export interface IntakeEntry {
  readonly entryId: string;
  readonly ticketId: string;
  readonly priority: number;
}

/** A fenced write was refused: another node holds the factory now. */
export type FencedResult = { readonly ok: true } | { readonly ok: false; readonly stale: true } | { readonly ok: false; readonly stale: false; readonly ticketId: string; readonly state: string };

/**
 * Tickets of one factory in Redis, keyed by ticket id (idempotent), and the moves between their
 * states, each one script: intake (stored + appended to the factory's intake stream, read by the
 * owner with a consumer group), propose and assign (fenced by the owner's lease token, all
 * tickets or none), requeue of proposals past their deadline, cancel.
 */
export class RedisTicketBook {
  private constructor(
    private readonly client: RedisClient,
    readonly group: string,
  ) {}

  static async open(client: RedisClient, group = 'owner'): Promise<RedisTicketBook> {
    await defineScripts(client);
    return new RedisTicketBook(client, group);
  }

  async intake(factory: string, ticketId: string, payload: string): Promise<TicketIntake> {
    const k = factoryKeys(factory);
    const [created, state, priority, assignment] = await runScript<[number, TicketState, number, string]>(
      this.client,
      'gfTicketIntake',
      [k.ticket(ticketId), k.intake, k.arrival],
      [ticketId, payload],
    );
    return { created: created === 1, state, priority, assignment: assignment === '' ? undefined : assignment };
  }

  /** The owner's read of new tickets (consumer = its node id); a new owner reads pending ones with `claimIdleMs`. */
  async read(factory: string, consumer: string, count: number, claimIdleMs?: number): Promise<IntakeEntry[]> {
    const k = factoryKeys(factory);
    let entries: StreamEntry[];
    try {
      entries = await this.readEntries(k.intake, consumer, count, claimIdleMs);
    } catch (error) {
      // The group is made on first use (and again if a Redis without persistence restarted).
      if (!(error instanceof Error && error.message.startsWith('NOGROUP'))) throw error;
      await this.client.xgroup('CREATE', k.intake, this.group, '0', 'MKSTREAM').catch((e: Error) => {
        if (!e.message.startsWith('BUSYGROUP')) throw e;
      });
      entries = await this.readEntries(k.intake, consumer, count, claimIdleMs);
    }
    return entries.map(([entryId, f]) => ({ entryId, ticketId: f[1]!, priority: Number(f[3]) }));
  }

  private async readEntries(intake: string, consumer: string, count: number, claimIdleMs: number | undefined): Promise<StreamEntry[]> {
    if (claimIdleMs !== undefined) {
      const [, claimed] = (await this.client.call('XAUTOCLAIM', intake, this.group, consumer, claimIdleMs, '0-0', 'COUNT', count)) as [string, StreamEntry[]];
      return claimed;
    }
    return entriesOfRead(await this.client.call('XREADGROUP', 'GROUP', this.group, consumer, 'COUNT', count, 'STREAMS', intake, '>'));
  }

  async propose(factory: string, token: number, deadline: number, tickets: readonly IntakeEntry[]): Promise<FencedResult> {
    const k = factoryKeys(factory);
    const args = tickets.flatMap((t) => [t.ticketId, t.entryId]);
    return fenced(await runScript(this.client, 'gfTicketPropose', [k.fence, k.proposed], [token, deadline, k.ticketPrefix, ...args]));
  }

  async assign(factory: string, token: number, assignment: string, ticketIds: readonly string[]): Promise<FencedResult> {
    const k = factoryKeys(factory);
    return fenced(
      await runScript(this.client, 'gfTicketAssign', [k.fence, k.proposed, k.intake], [token, this.group, assignment, k.ticketPrefix, ...ticketIds]),
    );
  }

  /** Returns the ticket ids put back in line, or undefined when the token is stale. */
  async requeueExpired(factory: string, token: number, now: number, limit = 100): Promise<string[] | undefined> {
    const k = factoryKeys(factory);
    const out = await runScript<(string | number)[]>(this.client, 'gfTicketRequeueExpired', [k.fence, k.proposed, k.intake], [
      token,
      this.group,
      now,
      limit,
      k.ticketPrefix,
    ]);
    return out[0] === -1 ? undefined : out.map(String);
  }

  async cancel(factory: string, ticketId: string): Promise<TicketState | undefined> {
    const k = factoryKeys(factory);
    return (await runScript<TicketState | null>(this.client, 'gfTicketCancel', [k.ticket(ticketId), k.proposed], [ticketId])) ?? undefined;
  }

  async state(factory: string, ticketId: string): Promise<TicketState | undefined> {
    return ((await this.client.hget(factoryKeys(factory).ticket(ticketId), 'state')) as TicketState | null) ?? undefined;
  }
}

function fenced(answer: unknown): FencedResult {
  const [code, ticketId, state] = answer as [number, string?, string?];
  if (code === 1) return { ok: true };
  if (code === -1) return { ok: false, stale: true };
  return { ok: false, stale: false, ticketId: ticketId!, state: state! };
}
