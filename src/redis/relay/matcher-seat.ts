import type { CorePlace } from '../../app/build-core.js';
import type { CoreHost } from '../../app/core-host.js';
import { LocalDelivery } from '../../cluster/in-process/index.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../../coordinator/messages.js';
import type { Log, TicketStore, Timers } from '../../coordinator/ports.js';
import { MatchmakingError } from '../../errors/index.js';
import type { Principal } from '../../security/tokens/principal.js';
import { LocalCall, type LocalAnswering } from './local-call.js';
import type { InboxEntry, OwnerStore, OwnerWrite } from './owner-store.js';
import { compareEntryIds } from './entry-ids.js';
import { redisUnavailable, wireError, type InboxMessage, type OutMessage } from './relay-codec.js';
import { checkKept, keptCheck } from './kept-check.js';
import { RelayChannel, RelayListener, type Answering, type LocalRoute } from './relay-endpoints.js';

export interface MatcherSeatOptions {
  readonly nodeId: string;
  readonly leaseMs: number;
  readonly log: Log;
  readonly now: () => number;
  /** The lease's beat (every lease/3). */
  readonly timers: Timers;
  /** Builds the core when this node takes the matcher: the process's one builder, with its environment. */
  readonly build: (place: CorePlace) => CoreHost;
  /**
   * After taking the matcher, and after dropping a dead node's servers, how long game servers may
   * take to reconnect (a server on a paused node notices only when its keepalive gives up): a find
   * for a factory without servers meanwhile is UNAVAILABLE (retry), not FAILED_PRECONDITION. Default 15 s.
   */
  readonly reconnectGraceMs?: number;
  /** Called with the core while this node owns the matcher, and with undefined when it stops. */
  readonly onCore?: (core: CoreHost | undefined) => void;
  /** Runs the commit of the in-process inputs of this tick (default setImmediate: one commit per tick, not one per find). */
  readonly defer?: (run: () => void) => void;
  /**
   * This node's own game servers reach this seat in process while it serves (a sharded node: its
   * gateway announces them here when it sees the shard's fence move). A hello this node relayed to
   * an earlier owner, claimed from that owner's pending requests, is then from before: applied, it
   * brought back games as they were then, and their seats were given again.
   */
  readonly ownServersInProcess?: boolean;
  /**
   * The seat ended its term on its own (a step it could not write, a stale token) while holding a
   * lease kept elsewhere: the keeper gives that lease up, so the shard starts again under a new
   * token. Kept, it was renewed with nobody serving, and the shard's finds waited for good.
   */
  readonly onTermEnded?: (token: number, reason: string) => void;
  /**
   * A find answered from the assignment an owner kept (or refused against it): a retry that
   * reached no core, so no core gives back what its edge claimed for it (a sharded node's player
   * and ticket id claims). The ticket's own claims went with the commit that assigned it.
   */
  readonly keptAnswered?: (request: FindRequest) => void;
}

/** Something to tell a call of this node once the commit before it succeeded; `drop` when it never will be. */
interface Delivery {
  readonly run: () => void;
  readonly drop: () => void;
}

const noop = () => undefined;

/** A find of this node's own client, waiting for the tick's read of kept assignments. */
interface Arrival {
  readonly request: FindRequest;
  readonly listener: TicketListener;
  readonly moved: () => void;
  readonly wanted: () => boolean;
}

/** A ticket's call as its owner holds it: relayed to a node, or this node's own, in process. */
type SeatListener = RelayListener | LocalCall;

/** Inbox entries read at a time, and this node's own finds stepped at a time. */
const READ_COUNT = 500;

/**
 * A commit of in-process inputs goes out once it holds this many writes, not only at the end of
 * the tick: the commit is one script call that blocks Redis while it runs, and a tick's backlog
 * made commits of tens of thousands of writes.
 */
const COMMIT_WRITES = 1_000;

/** The registry's refusal of a factory no connected server serves (src/factories/factory-registry.ts). */
const NO_SERVER = /^no connected game server serves /;

/**
 * The matcher owner. Every node competes for one lease (a fencing token per acquisition); the
 * holder builds the core, reads every node's requests from the inbox (acknowledged once applied)
 * and answers on each node's out stream. The writes of one step (a batch of requests and their
 * ack, or a timer's, or a late answer's) go out in one `commit`: a new owner never finds requests
 * acknowledged whose answers were not written, or a ticket gone whose assignment was not kept.
 * Every write is fenced: after a pause past its lease, the first refused commit makes it step
 * down; so does a commit that fails, since the core is then ahead of what Redis holds. A new
 * owner restores the waiting tickets, claims the old owner's unacknowledged requests and goes on;
 * servers re-announce through their nodes. Redis is behind an OwnerStore and time behind Timers,
 * so a test drives the owner step by step (`keepLease`, `step`) and kills it between any two.
 */
export class MatcherSeat implements Answering, LocalAnswering {
  private token: number | undefined;
  private core: CoreHost | undefined;
  /** The listener of each ticket's call, by ticket: kept until its last answer. */
  private readonly listeners = new Map<string, SeatListener>();
  /** This node's calls taken in process, until their last answer is told: handed back if the term ends first. */
  private readonly localCalls = new Set<LocalCall>();
  /** This node's finds of this tick, not yet taken (their kept assignments are read first, together). */
  private arrivals: Arrival[] = [];
  /** What the calls in process are told once the writes before it are committed. */
  private deliveries: Delivery[] = [];
  private commitQueued = false;
  /** The last commit, its deliveries told: the next one tells its own after it. */
  private committing: Promise<void> = Promise.resolve();
  private readonly channels = new Map<string, RelayChannel>();
  /**
   * The newest inbox entry this seat has applied: a hello taken in process comes after it, and
   * entries the group handed this seat are newer than every entry it gave an earlier owner, so a
   * message claimed late from that owner is older than an in-process hello too (unless this seat
   * has read nothing newer yet).
   */
  private newestRead: string | undefined;
  /** When this seat's term began (its clock): relayed finds are checked for kept assignments for a while after. */
  /**
   * The inbox's newest entry when this term began: a find queued up to there may copy one an
   * earlier owner answered since (a gateway checks the kept assignment as it queues a find, in
   * the same script), so it is read against the kept assignments, however late in the term.
   */
  private inboxAtTerm = '0-0';
  /** Kept assignments of the finds being applied, read before them (a young term, or requests claimed late). */
  private keptNow: ReadonlyMap<string, OutMessage | undefined> | undefined;
  /** The requests being applied were claimed from an earlier owner's pending ones. */
  private applyingClaimed = false;
  private lastRenewed = 0;
  /** Until then servers may still be reconnecting: a find short of servers is told to retry. */
  private serversBackBy = -Infinity;
  /** The writes of the step being applied. */
  private writes: OwnerWrite[] = [];
  /** Applying a batch of the inbox: its steps' writes and its ack are committed together. */
  private inInbox = false;
  private running = true;
  private auto = false;
  private cancelTick: (() => void) | undefined;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: OwnerStore,
    private readonly options: MatcherSeatOptions,
  ) {}

  get owner(): boolean {
    return this.token !== undefined;
  }

  /** Ticket calls this owner is answering (one listener each): falls back as they are answered. */
  get callsHeld(): number {
    return this.listeners.size;
  }

  /** True while this seat can take its node's own calls in process: it holds the term and its core is built. */
  get serving(): boolean {
    return this.token !== undefined && this.core !== undefined;
  }

  /**
   * A find of this node's own client, taken in process (LocalCall): no inbox, no out stream. A
   * ticket whose assignment an owner kept is answered from it, checked as a retry is (as
   * relay-find does). Its writes are committed with the other in-process inputs of the tick,
   * and the client is told only after that commit. `moved`: the term ended first, or it was not
   * taken (the term ended, or the call is no longer `wanted`): its gateway routes it again or lets it go.
   */
  findHere(request: FindRequest, listener: TicketListener, moved: () => void, wanted: () => boolean = () => true): void {
    if (this.token === undefined || !this.core) return moved();
    this.arrivals.push({ request, listener, moved, wanted });
    if (this.arrivals.length === 1) (this.options.defer ?? setImmediate)(() => this.takeArrivals());
  }

  /**
   * The finds of a tick: their kept assignments in one read (one MGET: the shard's keys share a
   * slot), then one step and one commit. At most READ_COUNT at a time, as an inbox read takes: a
   * node whose clients keep thousands of finds in flight made steps of tens of thousands of writes
   * (one commit of megabytes, Redis blocked while it runs); the rest go in the next turn.
   */
  private takeArrivals(): void {
    const batch = this.arrivals.length <= READ_COUNT ? this.arrivals : this.arrivals.slice(0, READ_COUNT);
    this.arrivals = batch === this.arrivals ? [] : this.arrivals.slice(READ_COUNT);
    if (this.arrivals.length > 0) (this.options.defer ?? setImmediate)(() => this.takeArrivals());
    const token = this.token;
    if (batch.length === 0) return;
    if (token === undefined) return batch.forEach((a) => a.moved());
    this.store.keptAnswers(batch.map((a) => a.request.ticketId)).then(
      (kept) => {
        if (this.token !== token || !this.core) return batch.forEach((a) => a.moved());
        this.applyHere(() => batch.forEach((arrival, i) => this.takeArrival(arrival, kept[i])));
      },
      (error: unknown) => {
        for (const a of batch) {
          if (a.wanted()) a.listener.fail(redisUnavailable(error), a.request.ticketId);
          else a.moved();
        }
      },
    );
  }

  private takeArrival({ request, listener, moved, wanted }: Arrival, kept: OutMessage | undefined): void {
    const id = request.ticketId;
    if (!wanted()) return moved();
    if (kept?.k === 'update') {
      this.options.keptAnswered?.(request);
      try {
        checkKept(request, kept.kept);
      } catch (error) {
        return listener.fail(error as MatchmakingError, id);
      }
      return listener.update(kept.update, id);
    }
    const held = this.listeners.get(id);
    const call = held instanceof LocalCall && held.call === listener ? held : new LocalCall(this, this.options.nodeId, id, held?.kept ?? keptCheck(request), listener, moved);
    if (call !== held) this.localCalls.add(call);
    this.takeFind(request, held, call);
  }

  /** A cancel of a call this node holds in process; undefined when this seat does not serve (ask the relay). */
  cancelHere(ticketId: string, caller?: Principal): Promise<boolean> | undefined {
    const core = this.core;
    if (this.token === undefined || !core) return undefined;
    let cancelled = false;
    this.applyHere(() => {
      cancelled = core.cancel(ticketId, caller);
    });
    return new Promise<boolean>((resolve, reject) => {
      this.deliver(
        () => resolve(cancelled),
        () => reject(new MatchmakingError('UNAVAILABLE', `CancelFind of "${ticketId.slice(0, 128)}": the matcher owner changed before it was written; retry`, 1000)),
      );
    });
  }

  /**
   * A game server whose stream this node holds, announced in process (its orders come back in
   * process, after their commit). `moved`: the term ended (or had): its gateway announces it to
   * the next owner through the relay.
   */
  connectHere(hello: ServerHello, channel: ServerChannel, moved: (ended: string) => void): void {
    if (this.token === undefined || !this.core) return moved('');
    this.applyHere(() => this.takeHello(hello, this.options.nodeId, 0, { channel, moved }));
  }

  /** An event of a server announced in process. */
  eventHere(serverId: string, event: ServerEvent, channel: ServerChannel): void {
    const held = this.channels.get(serverId);
    if (held?.local?.channel !== channel || !this.core) return;
    this.applyHere(() => this.takeEvent(serverId, held, event));
  }

  /** A server announced in process left. */
  byeHere(serverId: string, channel: ServerChannel): void {
    const held = this.channels.get(serverId);
    const core = this.core;
    if (held?.local?.channel !== channel || !core) return;
    this.channels.delete(serverId);
    this.applyHere(() => core.disconnectServer(serverId, held));
  }

  /** This node's client went away from a call held in process. */
  abandonHere(ticketId: string, listener: TicketListener): void {
    const held = this.listeners.get(ticketId);
    const core = this.core;
    if (!(held instanceof LocalCall) || held.call !== listener || !core) return;
    this.listeners.delete(ticketId);
    this.localCalls.delete(held);
    this.applyHere(() => core.abandon(ticketId, held));
  }

  /** Keeps the lease and reads the inbox on its own, until closed (a test calls keepLease and step itself). */
  start(): void {
    this.auto = true;
    const tick = () => {
      void this.keepLease().finally(() => {
        if (this.running) this.cancelTick = this.options.timers.set(tick, Math.max(50, Math.floor(this.options.leaseMs / 3)));
      });
    };
    tick();
  }

  async close(): Promise<void> {
    this.running = false;
    this.cancelTick?.();
    const token = this.token;
    this.stepDown('shutting down');
    this.store.interrupt();
    await this.reading;
    if (token !== undefined) await this.store.release(token).catch(() => undefined);
  }

  /** Acquire or renew, once (every lease/3 when started). */
  async keepLease(): Promise<void> {
    try {
      if (this.token === undefined) {
        const answer = await this.store.acquire();
        if (answer.held && this.running) await this.takeSeat(answer.token);
      } else if (await this.store.renew(this.token)) {
        this.lastRenewed = this.options.now();
        const token = this.token;
        await this.claimIdle(token);
        await this.dropLapsedNodes(token);
      } else {
        this.stepDown('lease lost');
      }
    } catch (error) {
      // Redis unreachable: the lease runs out there too; stop acting once it surely has.
      if (this.token !== undefined && this.options.now() - this.lastRenewed > this.options.leaseMs) this.stepDown('redis unreachable past the lease');
      this.options.log.debug({ error: (error as Error).message }, 'matcher lease: redis call failed');
    }
  }

  /**
   * Runs with a lease held by someone else (a shard's, kept by the ShardKeeper): restores the
   * tickets, claims the previous owner's requests and reads the inbox until `letGo`.
   */
  async hold(token: number): Promise<void> {
    if (this.token === token) return;
    this.stepDown('a newer term');
    this.auto = true;
    await this.takeSeat(token);
  }

  /** The lease is gone or handed over: stop acting at once (writes in flight are refused by the fence). */
  letGo(reason: string): void {
    this.stepDown(reason);
  }

  /** On the lease's beat while holding a lease kept elsewhere: late requests of a stale owner, dead nodes' servers. */
  async maintain(): Promise<void> {
    const token = this.token;
    if (token === undefined) return;
    this.lastRenewed = this.options.now();
    await this.claimIdle(token);
    await this.dropLapsedNodes(token);
  }

  /** Reads one batch of requests (waiting up to `blockMs`) and applies it; returns how many. */
  async step(blockMs: number): Promise<number> {
    const token = this.token;
    if (token === undefined) return 0;
    const entries = await this.store.readInbox(READ_COUNT, blockMs);
    if (this.token !== token) return 0; // stepped down while blocked: leave them to the next owner
    await this.applyInbox(token, entries);
    return entries.length;
  }

  private async takeSeat(token: number): Promise<void> {
    this.token = token;
    this.lastRenewed = this.options.now();
    this.serversMayReconnect();
    this.inboxAtTerm = await this.store.inboxEnd();
    if (this.token !== token) return;
    const restored = await this.store.loadTickets();
    if (this.token !== token) return;
    const store: TicketStore = {
      save: (record) => this.write({ kind: 'record', ticketId: record.request.ticketId, record }),
      remove: (ticketId) => this.write({ kind: 'record', ticketId, record: undefined }),
    };
    // Tickets riding a creation in flight are stored too: the step's commit carries them at no
    // extra round trip, and a new owner then gives every acknowledged ticket its place back.
    // Servers reconnect and re-announce within a watch beat (lease/3) of the fence moving: finds
    // arriving before them wait, rather than being refused for want of a server.
    this.core = this.options.build({
      store,
      restored,
      orders: new LocalDelivery(),
      storeInFlight: true,
      storeInFlightAtOnce: true,
      afterStep: () => this.afterStep(),
      awaitServersMs: 2 * this.options.leaseMs,
    });
    this.options.log.info({ node: this.options.nodeId, token, restoredTickets: restored.length }, 'this node now runs the matcher');
    this.options.onCore?.(this.core);
    // The previous owner's requests, read but never acknowledged: applied first, in order.
    let cursor = '0-0';
    do {
      if (this.token !== token) return;
      const page = await this.store.claimPending(0, cursor);
      await this.applyInbox(token, page.entries, true);
      cursor = page.next;
    } while (cursor !== '0-0');
    if (this.auto) this.reading = this.readLoop(token);
  }

  /** Ends the term from within (see `onTermEnded`). */
  private endTerm(token: number, reason: string): void {
    this.stepDown(reason);
    this.options.onTermEnded?.(token, reason);
  }

  private stepDown(reason: string): void {
    if (this.token === undefined) return;
    const ended = String(this.token);
    this.options.log.warn({ node: this.options.nodeId, token: this.token, reason }, 'this node no longer runs the matcher');
    this.token = undefined;
    this.writes = [];
    const untold = this.deliveries;
    this.deliveries = [];
    this.core?.beginShutdown();
    this.core?.close();
    this.core = undefined;
    const servers = [...this.channels.values()].flatMap((c) => (c.local ? [c.local] : []));
    this.listeners.clear();
    this.channels.clear();
    this.options.onCore?.(undefined);
    dropAll(untold);
    // This node's calls not yet answered for good, and its servers, go to the shard's next owner (it may be this node again).
    const calls: { moved(ended: string): void }[] = [...servers, ...this.localCalls, ...this.arrivals];
    this.arrivals = [];
    this.localCalls.clear();
    for (const call of calls) {
      try {
        call.moved(ended);
      } catch (error) {
        this.options.log.warn({ error: (error as Error).message }, 'matcher: a call could not be routed to the next owner');
      }
    }
  }

  private async readLoop(token: number): Promise<void> {
    while (this.token === token) {
      try {
        await this.step(5_000);
      } catch (error) {
        if (!this.running || this.token !== token) return;
        this.options.log.warn({ error: (error as Error).message }, 'matcher: reading the inbox failed; retrying');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** Requests a stale owner read while it stepped down, never applied: ours once idle a lease. */
  private async claimIdle(token: number): Promise<void> {
    const page = await this.store.claimPending(this.options.leaseMs, '0-0');
    await this.applyInbox(token, page.entries, true);
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
    if (nodes.length === 0) return;
    const lapsed = await this.store.lapsed(nodes);
    const core = this.core;
    if (this.token !== token || core === undefined) return;
    for (const node of lapsed) {
      const gone = [...this.channels].filter(([, channel]) => channel.node === node);
      for (const [serverId, channel] of gone) {
        this.channels.delete(serverId);
        core.disconnectServer(serverId, channel);
        // This node's own lapsed: its stream in process closes too, and the server says hello again.
        const local = channel.local;
        if (local) this.deliver(() => local.channel.close(new MatchmakingError('UNAVAILABLE', "this node's heartbeat lapsed: reconnect and send hello again")));
      }
      if (gone.some(([, c]) => c.local)) this.commitSoon();
      if (gone.length > 0) this.serversMayReconnect();
      if (gone.length > 0) this.options.log.warn({ node, servers: gone.map(([id]) => id) }, "a node's heartbeat lapsed: its game servers are disconnected");
    }
  }

  /** Applies requests in order, then commits what they caused with their ack, together. `late`: claimed from an earlier owner's pending ones. */
  private async applyInbox(token: number, entries: readonly InboxEntry[], late = false): Promise<void> {
    if (entries.length === 0 || this.token !== token) return;
    const kept = await this.keptOfReplayedFinds(entries, late);
    if (this.token !== token) return;
    this.keptNow = kept;
    this.applyingClaimed = late;
    this.inInbox = true;
    try {
      for (const entry of entries) {
        if (this.newestRead === undefined || compareEntryIds(entry.id, this.newestRead) > 0) this.newestRead = entry.id;
        try {
          this.applyOne(entry.message, entry.id);
        } catch (error) {
          this.options.log.warn({ error: (error as Error).message }, 'matcher: a request failed');
        }
      }
    } finally {
      this.inInbox = false;
      this.keptNow = undefined;
      this.applyingClaimed = false;
    }
    this.write({ kind: 'ack', entryIds: entries.map((e) => e.id) });
    await this.commit();
  }

  /**
   * The kept assignments of the finds in `entries` that may replay a find an earlier owner
   * answered (queued before this term began, or claimed late from that owner): one read for the
   * batch. A gateway checks a ticket's kept assignment as it queues the find, but one queued
   * before the assignment and read only after the owner changed reached the new core as a new
   * ticket, and its player was seated twice. Undefined when there are none, or when the read
   * fails (then as before).
   */
  private async keptOfReplayedFinds(entries: readonly InboxEntry[], late: boolean): Promise<ReadonlyMap<string, OutMessage | undefined> | undefined> {
    const ids = entries.flatMap((e) => (e.message.k === 'find' && (late || compareEntryIds(e.id, this.inboxAtTerm) <= 0) ? [e.message.request.ticketId] : []));
    if (ids.length === 0) return undefined;
    try {
      const kept = await this.store.keptAnswers(ids);
      return new Map(ids.map((id, i) => [id, kept[i]]));
    } catch (error) {
      this.options.log.warn({ error: (error as Error).message }, 'matcher: kept assignments not read; finds applied without them');
      return undefined;
    }
  }

  /** `id`: the request's inbox entry (stream order), to tell a server's messages sent before its current hello. */
  private applyOne(message: InboxMessage, id: string): void {
    const core = this.core;
    if (!core) return;
    if ((message.k === 'hello' || message.k === 'bye' || message.k === 'event') && this.superseded(message.k === 'hello' ? message.hello.serverId : message.serverId, id)) return;
    switch (message.k) {
      case 'find': {
        const id = message.request.ticketId;
        const kept = this.keptNow?.get(id);
        if (kept?.k === 'update') {
          // Answered by an earlier owner: the same answer, checked as a retry is, not a new ticket.
          this.options.keptAnswered?.(message.request);
          try {
            checkKept(message.request, kept.kept);
            this.answer(message.node, kept);
          } catch (error) {
            this.answer(message.node, { k: 'fail', ticketId: id, error: wireError(error) });
          }
          return;
        }
        const held = this.listeners.get(id);
        // The same node asking again (it resends its finds when the owner changes) keeps its
        // listener, so the core does not cancel the call it is answering.
        const listener = held?.node === message.node ? held : new RelayListener(this, message.node, id, held?.kept ?? keptCheck(message.request));
        this.takeFind(message.request, held, listener);
        return;
      }
      case 'cancel': {
        let answer: OutMessage;
        try {
          answer = { k: 'cancelled', req: message.req ?? 0, cancelled: core.cancel(message.ticketId, message.caller) };
        } catch (error) {
          answer = { k: 'cancelled', req: message.req ?? 0, cancelled: false, error: wireError(error) };
        }
        if (message.req !== undefined) this.answer(message.node, answer);
        return;
      }
      case 'abandon': {
        const listener = this.listeners.get(message.ticketId);
        if (listener?.node !== message.node) return;
        this.listeners.delete(message.ticketId);
        core.abandon(message.ticketId, listener);
        return;
      }
      case 'hello': {
        // A server this node's gateway holds in process: its relayed hello, event or bye is from
        // before (the in-process hello re-announced what they told); so is a hello this node
        // relayed to an earlier owner, claimed from its pending requests, when its servers come
        // here in process (ownServersInProcess).
        if (message.node === this.options.nodeId && ((this.options.ownServersInProcess && this.applyingClaimed) || this.channels.get(message.hello.serverId)?.local)) return;
        this.takeHello(message.hello, message.node, message.conn, undefined, id);
        return;
      }
      case 'bye': {
        const channel = this.channels.get(message.serverId);
        if (channel?.node !== message.node || channel.local) return;
        // A bye for one connection: the node holds no such one; a newer one from it stays.
        if (message.conn !== undefined && message.conn !== channel.conn) return;
        this.channels.delete(message.serverId);
        core.disconnectServer(message.serverId, channel);
        return;
      }
      case 'event': {
        const channel = this.channels.get(message.serverId);
        if (channel?.node !== message.node || channel.local) return;
        this.takeEvent(message.serverId, channel, message.event);
        return;
      }
      case 'unreadable':
        // Acknowledged with the batch: read again, it would fail again.
        this.options.log.warn({ entry: id, reason: message.reason }, 'matcher: an inbox entry could not be read; dropped');
        return;
    }
  }

  /**
   * A message about a server sent before the hello the seat holds the server by (from any node:
   * the server may have moved to another since): superseded, since that hello told the server as
   * it was then. Such a message comes late when an owner that stepped down while its read of the
   * inbox was blocked got it: it stays pending there until this owner claims it, a lease later,
   * behind requests sent after it. A stale hello applied then would replace the newer connection,
   * whose close would end the server's stream on its node, or route the server back to a node it
   * left (dead, so its servers are then disconnected while their streams stay open elsewhere).
   */
  private superseded(serverId: string, id: string): boolean {
    const channel = this.channels.get(serverId);
    return channel !== undefined && channel.announcedAt !== undefined && compareEntryIds(id, channel.announcedAt) < 0;
  }

  private takeHello(hello: ServerHello, node: string, conn: number, local?: LocalRoute, entryId?: string): void {
    const core = this.core;
    if (!core) return;
    const id = entryId ?? (local ? this.newestRead : undefined);
    const known = this.channels.get(hello.serverId);
    if (known && known.node !== node && core.view.servers().some((s) => s.serverId === hello.serverId)) {
      // The server moved to another node (its node died): the core keeps its games and the
      // seats it reserved, which the server may not have heard of yet; only the route moves.
      // An order lost with the old node resolves as the core expects: a creation times out
      // and its tickets go back in line, a reservation is confirmed by the player joining.
      known.node = node;
      known.conn = conn;
      known.local = local;
      known.announcedAt = id;
      this.options.log.info({ serverId: hello.serverId, node }, 'game server moved to another node');
      return;
    }
    const channel = new RelayChannel(this, node, hello.serverId, conn, local);
    channel.announcedAt = id;
    this.channels.set(hello.serverId, channel);
    try {
      // A server this node holds in process is placed on first: its orders and events skip the relay.
      core.connectServer(local ? { ...hello, sameNode: true } : hello, channel);
    } catch (error) {
      this.channels.delete(hello.serverId);
      channel.close(error as MatchmakingError);
    }
  }

  private takeEvent(serverId: string, channel: RelayChannel, event: ServerEvent): void {
    try {
      this.core?.onServerEvent(serverId, event);
    } catch (error) {
      channel.send({ kind: 'rejected', reason: wireError(error).message });
    }
  }

  /**
   * Gives a find to the core under `listener`. Another call is held only once the core took it: a
   * refused one (another request under this id, another caller) leaves the owner's call in place.
   */
  private takeFind(request: FindRequest, held: SeatListener | undefined, listener: SeatListener): void {
    const core = this.core;
    if (!core) return;
    const id = request.ticketId;
    if (listener !== held) this.listeners.set(id, listener);
    try {
      core.find(request, listener);
    } catch (error) {
      if (listener !== held) {
        if (held) this.listeners.set(id, held);
        else this.listeners.delete(id);
      }
      listener.fail(this.whileServersReconnect(error as MatchmakingError));
    }
  }

  /** In-process inputs: applied now, committed with the rest of the tick's (one commit, not one per find). */
  private applyHere(apply: () => void): void {
    const batching = this.inInbox;
    this.inInbox = true;
    try {
      apply();
    } finally {
      this.inInbox = batching;
      if (!batching && this.writes.length >= COMMIT_WRITES) void this.commit();
      else this.commitSoon();
    }
  }

  private commitSoon(): void {
    if (this.commitQueued) return;
    this.commitQueued = true;
    (this.options.defer ?? setImmediate)(() => {
      this.commitQueued = false;
      void this.commit();
    });
  }

  private serversMayReconnect(): void {
    this.serversBackBy = Math.max(this.serversBackBy, this.options.now() + (this.options.reconnectGraceMs ?? 15_000));
  }

  /** A factory short of servers while they may be reconnecting to this owner: retry, not a final refusal. */
  private whileServersReconnect(error: MatchmakingError): MatchmakingError {
    if (error.code !== 'FAILED_PRECONDITION' || !NO_SERVER.test(error.message) || this.options.now() >= this.serversBackBy) return error;
    return new MatchmakingError('UNAVAILABLE', `${error.message} right now: game servers are reconnecting after a node failed or the matcher moved; retry with the same ticket id`, 1000);
  }

  /** A step of the core was applied outside an inbox batch (a timer, a late answer): its writes go now. */
  private afterStep(): void {
    if (!this.inInbox) void this.commit();
  }

  private write(write: OwnerWrite): void {
    if (this.token !== undefined) this.writes.push(write);
  }

  /**
   * The step's writes, in one fenced transaction; a refusal or a failure ends this node's term.
   * Then, in order after the commit before it, what this node's own calls are told: only once
   * written, never after the term ended (those calls go to the next owner, who has the records).
   */
  private commit(): Promise<void> {
    const token = this.token;
    const writes = this.writes;
    const deliveries = this.deliveries;
    this.writes = [];
    this.deliveries = [];
    if (token === undefined) return Promise.resolve(dropAll(deliveries));
    if (writes.length === 0 && deliveries.length === 0) return Promise.resolve();
    const before = this.committing;
    const written = writes.length === 0 ? Promise.resolve('written' as const) : this.store.commit(token, writes);
    const done = (async () => {
      try {
        if ((await written) === 'refused') {
          this.options.log.warn({ node: this.options.nodeId, writes: writes.length }, 'a stale write was refused (fencing token)');
          if (this.token === token) this.endTerm(token, 'stale token');
        }
      } catch (error) {
        this.options.log.warn({ writes: writes.length, error: (error as Error).message }, 'matcher: a step could not be written');
        if (this.token === token) this.endTerm(token, 'a step could not be written');
      }
      await before;
      if (this.token !== token) return dropAll(deliveries);
      for (const delivery of deliveries) {
        try {
          delivery.run();
        } catch (error) {
          this.options.log.warn({ error: (error as Error).message }, 'matcher: a call could not be told');
        }
      }
    })();
    this.committing = done;
    return done;
  }

  deliver(run: () => void, drop: () => void = noop): void {
    if (this.token === undefined) return drop();
    this.deliveries.push({ run, drop });
  }

  keep(ticketId: string, message: OutMessage): void {
    this.write({ kind: 'kept', ticketId, message });
  }

  settled(call: LocalCall): void {
    this.localCalls.delete(call);
  }

  /** The call a listener answered is over (assigned, or failed): the owner forgets its listener. */
  answered(ticketId: string, listener: TicketListener): void {
    if (this.listeners.get(ticketId) === listener) this.listeners.delete(ticketId);
  }

  /** A fenced answer to a node, written with the rest of its step. */
  answer(node: string, message: OutMessage): void {
    this.write({ kind: 'answer', node, message });
  }
}


function dropAll(deliveries: readonly Delivery[]): void {
  for (const delivery of deliveries) delivery.drop();
}
