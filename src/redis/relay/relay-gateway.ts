import type { FactoryTemplate } from '../../config/config.js';
import type { CoordinatorCommands } from '../../coordinator/edges/commands.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, ServerOrder, TicketListener } from '../../coordinator/messages.js';
import type { Log, Timers } from '../../coordinator/ports.js';
import type { Principal } from '../../security/tokens/principal.js';
import { checkTakeOver, resumedElsewhere } from '../../coordinator/tickets/restored-tickets.js';
import { MatchmakingError, invalidArgument } from '../../errors/index.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import type { GatewayStore, OutEntry } from './gateway-store.js';
import { compareEntryIds } from './entry-ids.js';
import { checkKept } from './kept-check.js';
import { fromWire, redisUnavailable, type InboxMessage, type OutMessage } from './relay-codec.js';
import { RecentIds } from '../../collections/recent-ids.js';

interface PendingCancel {
  readonly resolve: (cancelled: boolean) => void;
  readonly reject: (error: MatchmakingError) => void;
  readonly stopTimer: () => void;
}

/**
 * A server channel that can tell a new owner of its server without the server's help (the
 * sharded gateway keeps what the server runs): when the owner changes, the server is announced
 * to it again with this hello, and its stream stays open.
 */
export interface ReannouncingChannel extends ServerChannel {
  /** Undefined: the new owner is the node's own seat, which was told in process; the relay lets the server go. */
  reannounce(): ServerHello | undefined;
}

/** The out stream is trimmed behind the reads at most this often, or after this many answers. */
const TRIM_EVERY_MS = 1000;
const TRIM_EVERY_ENTRIES = 500;

/** Stale connections remembered, so a burst of orders for one is answered with one bye. */
const TOLD_GONE_KEPT = 1024;

const canReannounce = (channel: ServerChannel): channel is ReannouncingChannel => typeof (channel as Partial<ReannouncingChannel>).reannounce === 'function';

interface Waiting {
  readonly request: FindRequest;
  readonly listener: TicketListener;
}

/**
 * A node's face to its own clients and game servers (CoordinatorCommands): every request goes
 * to the matcher owner's inbox, and the owner's answers come back on this node's out stream, to
 * the listener or server stream that asked. Every node runs one, the owner's included, so one
 * path serves all. When the owner changes (the fencing token moves), the finds still waiting here
 * are sent again (same ticket ids: they resume) and the game servers are asked to reconnect,
 * which re-announces their running games to the new owner. It renews the node's heartbeat on the
 * same beat; when it finds it lapsed (this node stalled past its TTL, and the owner may have
 * disconnected its servers), it does the same hand-over. Redis is behind a GatewayStore and time
 * behind Timers, so a test drives it step by step (`pump`, `watchOwner`).
 */
export class RelayGateway implements CoordinatorCommands {
  private readonly waiting = new Map<string, Waiting>();
  /** Each server's stream here, the connection number the owner knows it by, and the first one this stream was announced with. */
  private readonly servers = new Map<string, { readonly channel: ServerChannel; readonly conn: number; readonly since: number }>();
  private connections = 0;
  private registry: FactoryRegistry<null>;
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private fence: string | null | undefined;
  private lastRead = '0-0';
  /** Answers read since the out stream was last trimmed, and when that was. */
  private untrimmed = 0;
  private trimmedAt = -Infinity;
  private cancelWatch: (() => void) | undefined;
  private readonly cancels = new Map<number, PendingCancel>();
  private lastCancel = 0;
  /** Connections the owner was told are gone (server id and connection number), oldest first. */
  private readonly toldGone = new RecentIds(TOLD_GONE_KEPT);
  /** Servers to announce again once this tick's late orders are in. */
  private readonly announceAgain = new Set<string>();

  constructor(
    private readonly store: GatewayStore,
    readonly nodeId: string,
    templates: readonly FactoryTemplate[],
    private readonly log: Log,
    private readonly timers: Timers,
    private readonly watchEveryMs: number,
    /** A cancel the owner has not answered by then is UNAVAILABLE (retry): three leases, a takeover included. */
    private readonly cancelTimeoutMs = 9 * watchEveryMs,
    /** How long one read of the answers blocks when none come (a node's idle cost: one call per gateway per block). */
    private readonly readBlockMs = 1000,
    /** A find answered here from the assignment an owner kept (or refused against it): see MatcherSeatOptions.keptAnswered. */
    private readonly keptAnswered?: (request: FindRequest) => void,
  ) {
    // Hello's factories are a pure function of the config: answered here, without a round trip.
    this.registry = new FactoryRegistry(templates, () => null);
  }

  /** A reload's templates, for the finds and hellos from now on (a server connected before keeps the factories it was given). */
  setTemplates(templates: readonly FactoryTemplate[]): void {
    this.registry = new FactoryRegistry(templates, () => null);
  }

  /**
   * Reads answers and watches the owner on its own, until closed (a test calls pump and watchOwner
   * itself). `readOwnAnswers` false: the node reads every shard's answers in one blocking call
   * (NodeAnswers) and hands this gateway its own with `take`.
   */
  start(readOwnAnswers = true): void {
    if (readOwnAnswers) this.loop = this.readLoop();
    const watch = () => {
      this.cancelWatch = this.timers.set(() => void this.watchOwner().finally(() => this.running && watch()), this.watchEveryMs);
    };
    watch();
  }

  find(request: FindRequest, listener: TicketListener): void {
    this.ready();
    const held = this.waiting.get(request.ticketId);
    if (held && held.listener !== listener) {
      // Answers go to the call that holds the ticket: a different request never takes it over.
      checkTakeOver(request, held.request);
      held.listener.fail(resumedElsewhere(request.ticketId), request.ticketId);
    }
    this.waiting.set(request.ticketId, { request, listener });
    this.forwardFind(request, listener);
  }

  /** The owner decides (it alone knows the ticket and its owner): answered when its reply comes back. */
  cancel(ticketId: string, caller?: Principal): Promise<boolean> {
    this.ready();
    const req = ++this.lastCancel;
    const answer = new Promise<boolean>((resolve, reject) => {
      const stopTimer = this.timers.set(() => {
        this.cancels.delete(req);
        reject(new MatchmakingError('UNAVAILABLE', `CancelFind of "${ticketId.slice(0, 128)}": the matcher owner did not answer (it may be changing); retry`, 1000));
      }, this.cancelTimeoutMs);
      this.cancels.set(req, { resolve, reject, stopTimer });
    });
    this.send({ k: 'cancel', node: this.nodeId, ticketId, req, caller });
    return answer;
  }

  abandon(ticketId: string, listener: TicketListener): void {
    if (this.waiting.get(ticketId)?.listener !== listener) return;
    this.waiting.delete(ticketId);
    this.send({ k: 'abandon', node: this.nodeId, ticketId });
  }

  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    this.ready();
    const unknown = this.registry.unknownTemplates(hello.templates);
    if (unknown.length > 0) throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    this.servers.get(hello.serverId)?.channel.close(new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`));
    const conn = ++this.connections;
    this.servers.set(hello.serverId, { channel, conn, since: conn });
    this.send({ k: 'hello', node: this.nodeId, conn, hello });
    return this.registry.hostable(hello.attributes, hello.templates).map((i) => i.name);
  }

  /**
   * A server this node's own seat held in process until its term `ended` (the fence it wrote
   * under): the relay takes it over. The next owner is told now if this gateway already saw the
   * fence move past that term, otherwise when it does (`handOver` re-announces it): once, not
   * twice, since a second hello replaces the first and orphans the creations ordered on it.
   */
  adoptServer(hello: ServerHello, channel: ReannouncingChannel, ended: string): void {
    this.ready();
    const conn = ++this.connections;
    this.servers.set(hello.serverId, { channel, conn, since: conn });
    if (this.fence !== ended) this.send({ k: 'hello', node: this.nodeId, conn, hello });
  }

  disconnectServer(serverId: string, channel: ServerChannel): void {
    if (this.servers.get(serverId)?.channel !== channel) return;
    this.servers.delete(serverId);
    this.send({ k: 'bye', node: this.nodeId, serverId });
  }

  onServerEvent(serverId: string, event: ServerEvent): void {
    this.ready();
    this.send({ k: 'event', node: this.nodeId, serverId, event });
  }

  beginShutdown(): void {
    this.running = false;
    this.cancelWatch?.();
  }

  async close(): Promise<void> {
    this.beginShutdown();
    this.store.interrupt();
    await this.loop;
    await this.store.leave().catch(() => undefined);
  }

  /** Calls fail at once while Redis is unreachable: UNAVAILABLE, with the reason. */
  private ready(): void {
    if (!this.store.reachable) throw new MatchmakingError('UNAVAILABLE', `redis unreachable (connection ${this.store.status}): retry shortly`);
  }

  private send(message: InboxMessage): void {
    this.store.send(message).catch((error: unknown) => {
      this.log.warn({ kind: message.k, error: (error as Error).message }, 'relay: request not sent to the matcher owner');
      if (message.k === 'find') this.fail(message.request.ticketId, redisUnavailable(error));
      if (message.k === 'cancel' && message.req !== undefined) this.settleCancel(message.req, redisUnavailable(error));
    });
  }

  private forwardFind(request: FindRequest, listener: TicketListener): void {
    this.store.forwardFind(request.ticketId, { k: 'find', node: this.nodeId, request }).then(
      (kept) => {
        if (kept === undefined) return;
        // The kept assignment of a ticket the owner took: only for the same request from its owner.
        if (kept.k === 'update') {
          this.keptAnswered?.(request);
          try {
            checkKept(request, kept.kept);
          } catch (error) {
            if (this.waiting.get(request.ticketId)?.listener === listener) this.fail(request.ticketId, error as MatchmakingError);
            return;
          }
        }
        this.deliver(kept);
      },
      (error: unknown) => {
        if (this.waiting.get(request.ticketId)?.listener === listener) this.fail(request.ticketId, redisUnavailable(error));
      },
    );
  }

  private fail(ticketId: string, error: MatchmakingError): void {
    const waiting = this.waiting.get(ticketId);
    this.waiting.delete(ticketId);
    waiting?.listener.fail(error, ticketId);
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.pump(this.readBlockMs);
      } catch (error) {
        if (!this.running) return;
        this.log.warn({ error: (error as Error).message }, 'relay: reading answers failed; retrying');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** Reads this node's answers (waiting up to `blockMs` for some) and hands each to whoever asked; returns how many. */
  async pump(blockMs: number): Promise<number> {
    const entries = await this.store.readAnswers(this.lastRead, blockMs);
    this.take(entries);
    return entries.length;
  }

  /** Where this node's answers were read up to: the next read starts after it. */
  get answersReadTo(): string {
    return this.lastRead;
  }

  /** Hands each answer read (by `pump`, or by the node's one read of every shard) to whoever asked. */
  take(entries: readonly OutEntry[]): void {
    for (const { id, message } of entries) {
      // A read that overlapped another (the owner changed while the loop's read was blocked): once each.
      if (compareEntryIds(id, this.lastRead) <= 0) continue;
      this.lastRead = id;
      this.deliver(message);
    }
    if (entries.length === 0) return;
    // Trimming only frees memory (reads go on from lastRead): once a second, or every few hundred
    // answers, rather than one more command after every read.
    this.untrimmed += entries.length;
    const now = Date.now(); // wall time: when to trim is housekeeping, not behaviour a test steps through
    if (this.untrimmed < TRIM_EVERY_ENTRIES && now - this.trimmedAt < TRIM_EVERY_MS) return;
    this.untrimmed = 0;
    this.trimmedAt = now;
    void this.store.trimAnswers(this.lastRead).catch(() => undefined);
  }

  private deliver(message: OutMessage): void {
    switch (message.k) {
      case 'update': {
        const waiting = this.waiting.get(message.ticketId);
        if (message.update.kind === 'assigned') this.waiting.delete(message.ticketId);
        waiting?.listener.update(message.update, message.ticketId);
        return;
      }
      case 'fail':
        return this.fail(message.ticketId, fromWire(message.error));
      case 'cancelled':
        return this.settleCancel(message.req, message.error ? fromWire(message.error) : message.cancelled);
      case 'order': {
        const server = this.servers.get(message.serverId);
        if (server?.conn === message.conn) server.channel.send(message.order);
        else if (message.order.kind === 'reserveSeats' && server && message.conn >= server.since && message.conn < server.conn && canReannounce(server.channel)) this.lateOrder(message.serverId, server.channel, message.order);
        else this.staleOrder(message.serverId, message.conn, message.order.kind, server?.conn);
        return;
      }
      case 'close': {
        // Only the connection the owner meant: a server that reconnected since keeps its new stream.
        const server = this.servers.get(message.serverId);
        if (server?.conn !== message.conn) return;
        this.servers.delete(message.serverId);
        return server.channel.close(fromWire(message.error));
      }
      case 'unreadable':
        // Skipped (the read goes on past it): read again, it would fail again.
        return this.log.warn({ reason: message.reason }, 'relay: an answer could not be read; dropped');
    }
  }

  /**
   * Seats reserved on an earlier announcement of a stream this node still holds (announced again
   * since: to a shard's new owner, or to the same owner twice in a race). The server gets them,
   * since whoever reserved them has told the client already, and the shard's owner is told of the
   * server again once this tick's orders are in, so that its view holds the seats. A creation
   * ordered there is not sent (staleOrder): no client was told of it, and its owner may have
   * placed it again on another server since.
   */
  private lateOrder(serverId: string, channel: ReannouncingChannel, order: ServerOrder): void {
    channel.send(order);
    if (this.announceAgain.has(serverId)) return;
    this.announceAgain.add(serverId);
    queueMicrotask(() => {
      this.announceAgain.delete(serverId);
      const held = this.servers.get(serverId);
      if (held?.channel !== channel) return; // closed or replaced since
      this.servers.delete(serverId);
      const hello = channel.reannounce();
      if (hello === undefined) return; // the node's own seat serves the shard now, in process
      const conn = ++this.connections;
      this.servers.set(serverId, { channel, conn, since: held.since });
      this.send({ k: 'hello', node: this.nodeId, conn, hello });
    });
  }

  /**
   * An order for a connection of the server this node no longer holds (it closed, or the server
   * reconnected since on another stream) is not handed to the server. The owner is told at once that the
   * node holds no such connection (a bye for that one only), so a creation it ordered there goes
   * back in line now instead of waiting out its confirm window, and no further order goes to the
   * ghost. An owner that holds a newer connection from this node ignores it; once per connection.
   */
  private staleOrder(serverId: string, conn: number, order: string, current: number | undefined): void {
    const key = `${serverId}\u0000${conn}`;
    if (this.toldGone.has(key)) return;
    this.toldGone.add(key);
    this.log.info({ serverId, conn, current, order }, 'relay: an order for a closed server connection was not sent; the owner is told the connection is gone');
    this.send({ k: 'bye', node: this.nodeId, serverId, conn });
  }

  private settleCancel(req: number, outcome: boolean | MatchmakingError): void {
    const pending = this.cancels.get(req);
    if (!pending) return;
    this.cancels.delete(req);
    pending.stopTimer();
    if (typeof outcome === 'boolean') pending.resolve(outcome);
    else pending.reject(outcome);
  }

  /** Renews the heartbeat; a new fencing token (a new owner) or a lapsed heartbeat: hand over what this node holds. */
  async watchOwner(): Promise<void> {
    let fence: string | null;
    let alive: boolean;
    try {
      [alive, fence] = await Promise.all([this.store.renewHeartbeat(), this.store.fence()]);
    } catch {
      return;
    }
    const before = this.fence;
    this.fence = fence;
    if (before !== undefined && before !== null && before !== fence) {
      // The old owner's last orders are in this node's answers already (its commits were fenced):
      // they reach their servers first, so what is announced to the new owner holds what they made.
      await this.pump(0).catch(() => 0);
      this.handOver('the matcher owner changed', false);
    }
    else if (!alive) this.handOver("this node's heartbeat lapsed", true);
  }

  /**
   * Sends the waiting finds again (same ids: they resume) and asks the game servers to reconnect
   * (their hello re-announces their games). After a lapse, the owner may still hold them routed
   * here: a `bye` first, so their new hello is a fresh connection, not a replacement.
   */
  private handOver(reason: string, sayBye: boolean): void {
    this.log.info({ reason, tickets: this.waiting.size, servers: this.servers.size }, 'relay: resending finds, reconnecting servers');
    const servers = [...this.servers];
    this.servers.clear();
    for (const [serverId, { channel, since }] of servers) {
      if (!sayBye && canReannounce(channel)) {
        // A new owner: told of the server again on a new connection number; the stream stays
        // open (the old owner's orders were handed on just before, in watchOwner; a reservation
        // arriving later still reaches the server: lateOrder).
        const hello = channel.reannounce();
        if (hello === undefined) continue;
        const conn = ++this.connections;
        this.servers.set(serverId, { channel, conn, since });
        this.send({ k: 'hello', node: this.nodeId, conn, hello });
        continue;
      }
      if (sayBye) this.send({ k: 'bye', node: this.nodeId, serverId });
      channel.close(new MatchmakingError('UNAVAILABLE', `${reason}: reconnect and send hello again`));
    }
    // After the servers announced again, so the new owner knows them when the finds arrive.
    for (const { request, listener } of this.waiting.values()) this.forwardFind(request, listener);
  }
}
