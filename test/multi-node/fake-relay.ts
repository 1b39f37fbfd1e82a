import type { TicketRecord } from '../../src/coordinator/ports.js';
import type { LeaseAnswer } from '../../src/redis/factory-lease.js';
import type { GatewayStore, OutEntry } from '../../src/redis/relay/gateway-store.js';
import type { InboxEntry, OwnerStore, OwnerWrite } from '../../src/redis/relay/owner-store.js';
import { encodeRecord } from '../../src/redis/relay/owner-store.js';
import { decode, decodeRecord, encode, type InboxMessage, type OutMessage } from '../../src/redis/relay/relay-codec.js';

/**
 * The relay's Redis state in memory, with the semantics the relay relies on: a lease with a
 * fencing counter that never goes back, an inbox read by a consumer group (what is read stays
 * pending until acknowledged, and can be claimed by another consumer), an out stream per node,
 * the stored tickets, the kept assignments and the heartbeats. A commit is all or nothing, like
 * MULTI/EXEC. Messages and records go through the relay's codec, as they would to Redis. Time is
 * the test's manual clock. Every call the stores make is counted (`calls`), so a test can stop
 * an owner after any one of them.
 */
export class FakeRelay {
  fence = 0;
  private holder: { node: string; token: number; until: number } | undefined;
  private nextId = 1;
  /** Inbox entries not deleted, in order. */
  readonly inbox: { id: number; text: string }[] = [];
  private lastDelivered = 0;
  readonly pending = new Map<number, { consumer: string; deliveredAt: number }>();
  readonly tickets = new Map<string, string>();
  readonly assigned = new Map<string, string>();
  readonly out = new Map<string, { id: number; text: string }[]>();
  readonly heartbeats = new Map<string, number>();
  /** Every commit that was written, in order, for tests that look at what one step wrote. */
  readonly commits: { node: string; writes: readonly OwnerWrite[] }[] = [];
  calls = 0;

  constructor(private readonly now: () => number) {}

  /** The stored tickets as an owner taking over would read them. */
  storedTickets(): TicketRecord[] {
    return [...this.tickets.values()].map(decodeRecord);
  }

  owner(node: string, leaseMs: number): OwnerStore {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const relay = this;
    const call = <T>(fn: () => T): Promise<T> => {
      relay.calls++;
      try {
        return Promise.resolve(fn());
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return {
      acquire: () =>
        call((): LeaseAnswer => {
          const now = relay.now();
          const holder = relay.holder;
          if (holder && holder.until > now && holder.node !== node) return { held: false, retryInMs: holder.until - now };
          relay.holder = { node, token: ++relay.fence, until: now + leaseMs };
          return { held: true, token: relay.fence };
        }),
      renew: (token) =>
        call(() => {
          const holder = relay.holder;
          if (!holder || holder.node !== node || holder.token !== token || holder.until <= relay.now()) return false;
          holder.until = relay.now() + leaseMs;
          return true;
        }),
      release: (token) =>
        call(() => {
          if (relay.holder?.node === node && relay.holder.token === token) relay.holder = undefined;
        }),
      loadTickets: () => call(() => relay.storedTickets()),
      inboxEnd: () => call(() => String(relay.inbox.at(-1)?.id ?? '0-0')),
      claimPending: (minIdleMs) =>
        call(() => {
          const entries: InboxEntry[] = [];
          for (const entry of relay.inbox) {
            const p = relay.pending.get(entry.id);
            if (!p || relay.now() - p.deliveredAt < minIdleMs) continue;
            relay.pending.set(entry.id, { consumer: node, deliveredAt: relay.now() });
            entries.push({ id: String(entry.id), message: decode<InboxMessage>(entry.text) });
          }
          return { next: '0-0', entries };
        }),
      readInbox: (count) =>
        call(() => {
          const entries: InboxEntry[] = [];
          for (const entry of relay.inbox) {
            if (entry.id <= relay.lastDelivered || entries.length >= count) continue;
            relay.lastDelivered = entry.id;
            relay.pending.set(entry.id, { consumer: node, deliveredAt: relay.now() });
            entries.push({ id: String(entry.id), message: decode<InboxMessage>(entry.text) });
          }
          return entries;
        }),
      keptAnswers: (ticketIds) =>
        call(() =>
          ticketIds.map((id) => {
            const kept = relay.assigned.get(id);
            return kept === undefined ? undefined : decode<OutMessage>(kept);
          }),
        ),
      commit: (token, writes) =>
        call(() => {
          if (token !== relay.fence) return 'refused' as const;
          for (const write of writes) relay.apply(write);
          relay.commits.push({ node, writes });
          return 'written' as const;
        }),
      lapsed: (nodes) => call(() => nodes.filter((n) => (relay.heartbeats.get(n) ?? 0) <= relay.now())),
      interrupt: () => {},
    };
  }

  gateway(node: string, heartbeatMs: number): GatewayStore {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const relay = this;
    relay.heartbeats.set(node, relay.now() + heartbeatMs);
    return {
      reachable: true,
      status: 'ready',
      forwardFind: async (ticketId, message) => {
        const kept = relay.assigned.get(ticketId);
        if (kept !== undefined) return decode<OutMessage>(kept);
        relay.push(message);
        return undefined;
      },
      send: async (message) => relay.push(message),
      readAnswers: async (after) => (relay.out.get(node) ?? []).filter((e) => e.id > streamId(after)).map((e): OutEntry => ({ id: String(e.id), message: decode<OutMessage>(e.text) })),
      trimAnswers: async (id) => {
        const stream = relay.out.get(node);
        if (stream) relay.out.set(node, stream.filter((e) => e.id > streamId(id)));
      },
      fence: async () => (relay.fence === 0 ? null : String(relay.fence)),
      renewHeartbeat: async () => {
        const alive = (relay.heartbeats.get(node) ?? 0) > relay.now();
        relay.heartbeats.set(node, relay.now() + heartbeatMs);
        return alive;
      },
      interrupt: () => {},
      leave: async () => {
        relay.out.delete(node);
        relay.heartbeats.delete(node);
      },
    };
  }

  /** Every message nodes sent the inbox, in order, for tests that count what a node said. */
  readonly sent: InboxMessage[] = [];

  private push(message: InboxMessage): void {
    this.sent.push(message);
    this.inbox.push({ id: this.nextId++, text: encode(message) });
  }

  private apply(write: OwnerWrite): void {
    switch (write.kind) {
      case 'answer': {
        const text = encode(write.message);
        let stream = this.out.get(write.node);
        if (!stream) this.out.set(write.node, (stream = []));
        stream.push({ id: this.nextId++, text });
        if (write.message.k === 'update' && write.message.update.kind === 'assigned') this.assigned.set(write.message.ticketId, text);
        return;
      }
      case 'record':
        if (write.record === undefined) this.tickets.delete(write.ticketId);
        else this.tickets.set(write.ticketId, encodeRecord(write.record));
        return;
      case 'kept':
        this.assigned.set(write.ticketId, encode(write.message));
        return;
      case 'ack':
        for (const id of write.entryIds.map(Number)) {
          this.pending.delete(id);
          const at = this.inbox.findIndex((e) => e.id === id);
          if (at >= 0) this.inbox.splice(at, 1);
        }
        return;
    }
  }
}

/** Our ids are plain numbers; a reader starts from Redis' '0-0'. */
function streamId(id: string): number {
  return Number(id.split('-')[0]);
}

/**
 * An OwnerStore that stops answering after its `limit`-th call, as a process killed (-9) right
 * after that call would: the calls it made took effect in Redis, the later ones never happen.
 */
export function killedAfter(store: OwnerStore, limit: number): OwnerStore & { readonly dead: boolean } {
  let calls = 0;
  const frozen = <T>(): Promise<T> => new Promise<T>(() => {});
  const gate = <A extends unknown[], T>(fn: (...args: A) => Promise<T>) => (...args: A): Promise<T> => (++calls > limit ? frozen<T>() : fn(...args));
  return {
    get dead() {
      return calls > limit;
    },
    acquire: gate(() => store.acquire()),
    renew: gate((token: number) => store.renew(token)),
    release: gate((token: number) => store.release(token)),
    loadTickets: gate(() => store.loadTickets()),
    inboxEnd: gate(() => store.inboxEnd()),
    claimPending: gate((minIdleMs: number, cursor: string) => store.claimPending(minIdleMs, cursor)),
    readInbox: gate((count: number, blockMs: number) => store.readInbox(count, blockMs)),
    keptAnswers: gate((ticketIds: readonly string[]) => store.keptAnswers(ticketIds)),
    commit: gate((token: number, writes: readonly OwnerWrite[]) => store.commit(token, writes)),
    lapsed: gate((nodes: readonly string[]) => store.lapsed(nodes)),
    interrupt: () => {},
  };
}
