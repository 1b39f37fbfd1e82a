import type { CorePlace } from '../../app/build-core.js';
import type { CoreHost } from '../../app/core-host.js';
import { LocalDelivery } from '../../cluster/in-process/index.js';
import type { CoordinatorConfig } from '../../config/config.js';
import type { Log } from '../../coordinator/ports.js';
import type { MatchmakingError } from '../../errors/index.js';
import { RedisFactoryLease } from '../factory-lease.js';
import type { RedisClient } from '../script-set.js';
import type { StreamEntry } from '../stream-reply.js';
import { entriesOfRead } from '../stream-reply.js';
import { decode, encode, wireError, type InboxMessage, type OutMessage } from './relay-codec.js';
import { OWNER_GROUP, relayKeys } from './relay-keys.js';
import { FencedBatch } from './fenced-batch.js';
import { RelayChannel, RelayListener } from './relay-endpoints.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { RelayTicketStore } from './relay-ticket-store.js';

export interface MatcherSeatOptions {
  readonly config: CoordinatorConfig;
  readonly nodeId: string;
  readonly leaseMs: number;
  readonly log: Log;
  /** Builds the core when this node takes the matcher: the process's one builder, with its environment. */
  readonly build: (place: CorePlace) => CoreHost;
  /** Called with the core while this node owns the matcher, and with undefined when it stops. */
  readonly onCore?: (core: CoreHost | undefined) => void;
}

/** How long a dead node's unread answers and a kept assignment stay in Redis. */
const OUT_KEPT_MS = 3_600_000;

/**
 * The matcher owner. Every node competes for one lease (fencing token on each acquisition);
 * the holder runs the coordinator core, reads every node's requests from the inbox (consumer
 * group "owner", acknowledged once applied) and answers on each node's out stream. All its
 * writes are fenced scripts: after a pause past its lease, the first refused write makes it
 * step down. A new owner restores the waiting tickets, claims the old owner's unacknowledged
 * requests (XAUTOCLAIM) and goes on; servers re-announce through their nodes.
 */
export class MatcherSeat {
  private token: number | undefined;
  private core: CoreHost | undefined;
  private readonly listeners = new Map<string, RelayListener>();
  private readonly channels = new Map<string, RelayChannel>();
  private lastRenewed = 0;
  /** The current owner term's writes; a new one per term, so a stale term's queue is never sent with a new token. */
  private batch: FencedBatch | undefined;
  private running = true;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reading: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: RedisClient,
    private readonly reader: RedisClient,
    private readonly lease: RedisFactoryLease,
    private readonly options: MatcherSeatOptions,
  ) {}

  static async open(client: RedisClient, reader: RedisClient, options: MatcherSeatOptions): Promise<MatcherSeat> {
    const lease = await RedisFactoryLease.open(client, options.nodeId, options.leaseMs, () => ({ lease: relayKeys.lease, fence: relayKeys.fence }));
    const seat = new MatcherSeat(client, reader, lease, options);
    seat.tick();
    return seat;
  }

  get owner(): boolean {
    return this.token !== undefined;
  }

  async close(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    const token = this.token;
    this.stepDown('shutting down');
    this.reader.disconnect();
    await this.reading;
    if (token !== undefined) await this.lease.release('matcher', token).catch(() => false);
  }

  /** Acquire or renew every lease/3. */
  private tick(): void {
    if (!this.running) return;
    void this.keepLease().finally(() => {
      if (this.running) this.timer = setTimeout(() => this.tick(), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    });
  }

  private async keepLease(): Promise<void> {
    try {
      if (this.token === undefined) {
        const answer = await this.lease.acquire('matcher');
        if (answer.held && this.running) await this.takeSeat(answer.token);
      } else if (await this.lease.renew('matcher', this.token)) {
        this.lastRenewed = Date.now();
        const token = this.token;
        await this.claimIdle(token);
        await this.dropLapsedNodes(token);
      } else {
        this.stepDown('lease lost');
      }
    } catch (error) {
      // Redis unreachable: the lease runs out there too; stop acting once it surely has.
      if (this.token !== undefined && Date.now() - this.lastRenewed > this.options.leaseMs) this.stepDown('redis unreachable past the lease');
      this.options.log.debug({ error: (error as Error).message }, 'matcher lease: redis call failed');
    }
  }

  private async takeSeat(token: number): Promise<void> {
    this.token = token;
    this.lastRenewed = Date.now();
    const { log } = this.options;
    const restored = await RelayTicketStore.load(this.client);
    this.batch = new FencedBatch(this.client, (what) => this.refused(what), log);
    const store = new RelayTicketStore(this.batch, token);
    // Tickets riding a creation in flight are stored too: the step's MULTI carries them at no
    // extra round trip, and a new owner then gives every acknowledged ticket its place back.
    this.core = this.options.build({ store, restored, orders: new LocalDelivery(), storeInFlight: true });
    log.info({ node: this.options.nodeId, token, restoredTickets: restored.length }, 'this node now runs the matcher');
    this.options.onCore?.(this.core);
    this.reading = this.readInbox(token);
  }

  private stepDown(reason: string): void {
    if (this.token === undefined) return;
    this.options.log.warn({ node: this.options.nodeId, token: this.token, reason }, 'this node no longer runs the matcher');
    this.token = undefined;
    this.core?.beginShutdown();
    this.core?.close();
    this.core = undefined;
    this.listeners.clear();
    this.channels.clear();
    this.options.onCore?.(undefined);
  }

  private async readInbox(token: number): Promise<void> {
    await this.client.xgroup('CREATE', relayKeys.inbox, OWNER_GROUP, '0', 'MKSTREAM').catch((e: Error) => {
      if (!e.message.startsWith('BUSYGROUP')) throw e;
    });
    // The previous owner's requests, read but never acknowledged: applied first, in order.
    let cursor = '0-0';
    do {
      if (this.token !== token) return;
      const [next, claimed] = (await this.client.call('XAUTOCLAIM', relayKeys.inbox, OWNER_GROUP, this.options.nodeId, 0, cursor, 'COUNT', 500)) as [string, StreamEntry[]];
      await this.apply(claimed.filter((e) => e[1] !== null));
      cursor = next;
    } while (cursor !== '0-0');
    while (this.token === token) {
      try {
        const entries = entriesOfRead(
          await this.reader.call('XREADGROUP', 'GROUP', OWNER_GROUP, this.options.nodeId, 'COUNT', 500, 'BLOCK', 5_000, 'STREAMS', relayKeys.inbox, '>'),
        );
        if (this.token !== token) return; // stepped down while blocked: leave them to the next owner
        await this.apply(entries);
      } catch (error) {
        if (!this.running || this.token !== token) return;
        this.options.log.warn({ error: (error as Error).message }, 'matcher: reading the inbox failed; retrying');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** Requests a stale owner read while it stepped down, never applied: ours once idle a lease. */
  private async claimIdle(token: number): Promise<void> {
    const [, claimed] = (await this.client.call('XAUTOCLAIM', relayKeys.inbox, OWNER_GROUP, this.options.nodeId, this.options.leaseMs, '0-0', 'COUNT', 500)) as [
      string,
      StreamEntry[],
    ];
    if (this.token === token) await this.apply(claimed.filter((e) => e[1] !== null));
  }

  /**
   * Game servers routed through a node whose heartbeat lapsed leave the core as if their streams
   * ended: their games end, their creations in flight go back in line at their original priority,
   * and no creation is sent to a ghost to time out. A server that reconnects through another node
   * later says hello again and re-announces its games. The dead node's out stream is left to
   * expire: its orders are ambiguous (delivered or not when it died), so none is sent twice; its
   * ticket updates are kept where a resuming client reads them (`a:<ticket>`, the tickets hash).
   */
  private async dropLapsedNodes(token: number): Promise<void> {
    const nodes = [...new Set([...this.channels.values()].map((c) => c.node))];
    const lapsed = await NodeHeartbeat.lapsed(this.client, nodes);
    const core = this.core;
    if (this.token !== token || core === undefined) return;
    for (const node of lapsed) {
      const gone = [...this.channels].filter(([, channel]) => channel.node === node);
      for (const [serverId, channel] of gone) {
        this.channels.delete(serverId);
        core.disconnectServer(serverId, channel);
      }
      if (gone.length > 0) this.options.log.warn({ node, servers: gone.map(([id]) => id) }, "a node's heartbeat lapsed: its game servers are disconnected");
    }
  }

  private async apply(entries: readonly StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (const [, fields] of entries) {
      try {
        this.applyOne(decode<InboxMessage>(fields[1]!));
      } catch (error) {
        this.options.log.warn({ error: (error as Error).message }, 'matcher: a request failed');
      }
    }
    const token = this.token;
    const batch = this.batch;
    if (token === undefined || batch === undefined) return;
    // Acknowledged in the same MULTI as the answers they caused: both land, or neither.
    batch.add('gfRelayAck', [relayKeys.fence, relayKeys.inbox, token, OWNER_GROUP, ...entries.map((e) => e[0])], 'inbox ack');
    await batch.flush();
  }

  private applyOne(message: InboxMessage): void {
    const core = this.core;
    if (!core) return;
    switch (message.k) {
      case 'find': {
        const id = message.request.ticketId;
        let listener = this.listeners.get(id);
        // The same node asking again (it resends its finds when the owner changes) keeps its
        // listener, so the core does not cancel the call it is answering.
        if (listener?.node !== message.node) this.listeners.set(id, (listener = new RelayListener(this, message.node, id)));
        try {
          core.find(message.request, listener);
        } catch (error) {
          listener.fail(error as MatchmakingError);
        }
        return;
      }
      case 'cancel':
        core.cancel(message.ticketId);
        return;
      case 'abandon': {
        const listener = this.listeners.get(message.ticketId);
        if (listener?.node !== message.node) return;
        this.listeners.delete(message.ticketId);
        core.abandon(message.ticketId, listener);
        return;
      }
      case 'hello': {
        const known = this.channels.get(message.hello.serverId);
        if (known && known.node !== message.node && core.view.servers().some((s) => s.serverId === message.hello.serverId)) {
          // The server moved to another node (its node died): the core keeps its games and the
          // seats it reserved, which the server may not have heard of yet; only the route moves.
          // An order lost with the old node resolves as the core expects: a creation times out
          // and its tickets go back in line, a reservation is confirmed by the player joining.
          known.node = message.node;
          this.options.log.info({ serverId: message.hello.serverId, node: message.node }, 'game server moved to another node');
          return;
        }
        const channel = new RelayChannel(this, message.node, message.hello.serverId);
        this.channels.set(message.hello.serverId, channel);
        try {
          core.connectServer(message.hello, channel);
        } catch (error) {
          this.channels.delete(message.hello.serverId);
          channel.close(error as MatchmakingError);
        }
        return;
      }
      case 'bye': {
        const channel = this.channels.get(message.serverId);
        if (channel?.node !== message.node) return;
        this.channels.delete(message.serverId);
        core.disconnectServer(message.serverId, channel);
        return;
      }
      case 'event': {
        const channel = this.channels.get(message.serverId);
        if (channel?.node !== message.node) return;
        try {
          core.onServerEvent(message.serverId, message.event);
        } catch (error) {
          channel.send({ kind: 'rejected', reason: wireError(error).message });
        }
        return;
      }
    }
  }

  /** Redis refused a write of ours: another node took the matcher (we were paused past the lease). */
  private refused(what: string): void {
    this.options.log.warn({ node: this.options.nodeId, what }, 'a stale write was refused (fencing token)');
    this.stepDown('stale token');
  }

  /** The call a listener answered is over (assigned, or failed): the owner forgets its listener. */
  answered(ticketId: string, listener: RelayListener): void {
    if (this.listeners.get(ticketId) === listener) this.listeners.delete(ticketId);
  }

  /** A fenced answer to a node; a refused one means another node owns the matcher now. */
  answer(node: string, message: OutMessage): void {
    const token = this.token;
    if (token === undefined) return;
    const keys = [relayKeys.fence, relayKeys.out(node)];
    if (message.k === 'update' && message.update.kind === 'assigned') {
      const ttl = this.options.config.placement.ticketTtlMs;
      this.batch?.add('gfRelayAssign', [...keys, relayKeys.assigned(message.ticketId), token, encode(message), OUT_KEPT_MS, ttl], `answer to ${node}`);
    } else {
      this.batch?.add('gfRelaySend', [...keys, token, encode(message), OUT_KEPT_MS], `answer to ${node}`);
    }
  }
}

