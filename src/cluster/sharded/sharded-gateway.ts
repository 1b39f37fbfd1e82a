import type { FactoryTemplate } from '../../config/config.js';
import type { CoordinatorCommands } from '../../coordinator/edges/commands.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../../coordinator/messages.js';
import type { Log } from '../../coordinator/ports.js';
import { checkTakeOver, ticketIdReused } from '../../coordinator/tickets/restored-tickets.js';
import { MatchmakingError, invalidArgument } from '../../errors/index.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import type { Principal } from '../../security/tokens/principal.js';
import { apportionSlots, shardOfFactory, type ApportionOptions, type ShardDemand } from '../../sharding/index.js';
import type { PlayerClaimConflict } from '../ports.js';
import { ServerShards } from './server-shards.js';

/**
 * Why a find's claim was refused: a player of its party holds another ticket, or its ticket id
 * is live in another shard (a find for another factory under that id: another request).
 */
export type SharedClaimConflict = PlayerClaimConflict | { readonly ticketId: string; readonly shard: number };

/**
 * One live ticket per player across the shards, and one shard per live ticket id: claimed here
 * before a find is forwarded (each shard's core knows only its own ticket ids).
 */
/**
 * A claim's answer: refused, or taken, with `undo` to give back what this claim took when its
 * find never reaches a core. Only what it took: a retry's, or a namesake's in the same shard
 * (whose core then refuses it), finds the keys already held for the live ticket, which keeps them.
 */
export type ClaimAnswer = { readonly conflict: SharedClaimConflict } | { readonly conflict?: undefined; undo(): Promise<void> };

export interface SharedPlayerClaims {
  claim(ticketId: string, shard: number, playerIds: readonly string[]): Promise<ClaimAnswer>;
  /**
   * Frees the players, and the id unless `keepId`, still held by `ticketId` in `shard` (the
   * owner's core releases with its `release` effects: `keepId` while the ticket under that id lives).
   */
  release(ticketId: string, shard: number, playerIds: readonly string[], keepId?: boolean): Promise<void>;
  /** The shard of the live ticket holding this id, undefined when none does. */
  shardOf(ticketId: string): Promise<number | undefined>;
}

/**
 * The matcher seat of a shard this node owns, taking this node's calls in process (no inbox, no
 * answer stream): each answer reaches the listener once the commit holding it has succeeded.
 */
export interface LocalSeat {
  /** It holds the shard's term and its core is built. */
  readonly serving: boolean;
  /**
   * `moved`: the term ended before the call's last answer, or the find was not taken (the term
   * ended, or `wanted` said no: the client left while the seat read the kept assignment).
   */
  findHere(request: FindRequest, listener: TicketListener, moved: () => void, wanted: () => boolean): void;
  /** Undefined when the seat does not serve (the gateway asks through the relay). */
  cancelHere(ticketId: string, caller?: Principal): Promise<boolean> | undefined;
  abandonHere(ticketId: string, listener: TicketListener): void;
  /** A server's hello for the shard, its orders back in process once committed; `moved` with the term (fence) that ended. */
  connectHere(hello: ServerHello, channel: ServerChannel, moved: (ended: string) => void): void;
  eventHere(serverId: string, event: ServerEvent, channel: ServerChannel): void;
  byeHere(serverId: string, channel: ServerChannel): void;
}

/** A shard's gateway to its owner; `adoptServer`: take over a server the node's own seat held until its term `ended`. */
export type ShardRelay = CoordinatorCommands & {
  adoptServer?(hello: ServerHello, channel: ServerChannel & { reannounce(): ServerHello | undefined }, ended: string): void;
};

interface HeldTicket {
  readonly shard: number;
  readonly request: FindRequest;
  readonly listener: TicketListener;
  readonly relayed: TicketListener;
  /** Taken by this node's own seat, in process. */
  local: boolean;
  /** Its client was told the shard owner's address (route hints go on a relayed ticket's first update only). */
  hinted: boolean;
}

interface Connection {
  /** The server's own hello (what it may host, should a reload make more factories). */
  readonly hello: ServerHello;
  readonly channel: ServerChannel;
  readonly shards: ServerShards;
  /** The channel each shard was given (its orders are recorded on the way to the server). */
  readonly parts: Map<number, ServerChannel>;
  /** Shards whose owner is this node's seat, holding the server in process. */
  readonly here: Set<number>;
}

/**
 * A node's face when factories are sharded: each call goes to the gateway of its shard (one per
 * shard, each relaying to that shard's owner, wherever it runs). A find goes to the shard of the
 * factory its template and partition select (the registry's look-up, a pure function of the
 * config); a game server is announced to every shard it can host, with the slots granted to each
 * (ServerShards), and each of its events goes to the shard it is about. When a shard's owner
 * changes, its gateway announces the server again to the new owner (ServerShards keeps the
 * server's games as its events tell them), so the stream stays open. When a shard closes the
 * server's stream (it refused or replaced the connection, or this node's heartbeat lapsed), the
 * whole connection closes: the server says hello again to every shard, which re-announces its
 * games where they belong. A shard this node's own seat serves (`local`) takes the node's finds,
 * cancels, abandons and server messages in process, and hands back what it still owes when its
 * term ends (`moved`: to the next owner through the relay).
 */
export class ShardedGateway implements CoordinatorCommands {
  private registry: FactoryRegistry<null>;
  /** Tickets of this node's calls, by id: their shard and the listener the shard was given, for cancel and abandon. */
  private readonly tickets = new Map<string, HeldTicket>();
  private readonly servers = new Map<string, Connection>();
  /** Each shard's demand as the grant loop last read it: a hello's slots follow it too. */
  private demandNow: ReadonlyMap<number, ShardDemand> = new Map();
  /**
   * Each factory's shard, once hashed (a SHA-256 each): asked for every find, every server event
   * and every view of the node. Factories are the config's (a find's partition is checked before),
   * so this holds at most every factory the config makes.
   */
  private readonly shardOfName = new Map<string, number>();

  constructor(
    /** One gateway per shard, index = shard. */
    private readonly shards: readonly ShardRelay[],
    templates: readonly FactoryTemplate[],
    private readonly log: Log,
    /** Absent: each shard's core claims its own players only. */
    private readonly claims?: SharedPlayerClaims,
    /** Told of each find's shard (demand, for the shard plan). */
    private readonly onFind?: (shard: number) => void,
    /** The seat of a shard this node owns and serves: its finds, cancels and abandons stay in process. */
    private readonly local?: (shard: number) => LocalSeat | undefined,
    /**
     * The client-facing address of the node that owns the shard now, undefined when it is this
     * node or not known (no owner, no address published): the route hint of a relayed ticket.
     */
    private readonly ownerAddress?: (shard: number) => string | undefined,
  ) {
    this.registry = new FactoryRegistry(templates, () => null);
  }

  /** A reload's templates, for the finds and hellos from now on, and for the servers connected here. */
  setTemplates(templates: readonly FactoryTemplate[]): void {
    this.registry = new FactoryRegistry(templates, () => null);
    // A connected server that can now host factories of shards it did not is announced to them
    // (each core already serves a connected server's new factories in shards it knew it in).
    for (const connection of this.servers.values()) {
      const { hello } = connection;
      const hostable = this.registry.hostable(hello.attributes, hello.templates).map((i) => this.shardOf(i.name));
      for (const shard of connection.shards.host([...new Set(hostable)])) {
        try {
          this.attach(connection, shard, connection.shards.helloOf(shard));
        } catch (error) {
          this.log.warn({ serverId: hello.serverId, shard, error: (error as Error).message }, 'sharded gateway: a server was not announced to a shard a reload gave it');
        }
      }
    }
  }

  shardOf(factory: string): number {
    let shard = this.shardOfName.get(factory);
    if (shard === undefined) this.shardOfName.set(factory, (shard = shardOfFactory(factory, this.shards.length)));
    return shard;
  }

  find(request: FindRequest, listener: TicketListener): void {
    const shard = this.shardOf(this.registry.resolve(request.template, request.partition));
    const before = this.tickets.get(request.ticketId);
    // A call for a ticket this node holds a call for: refused before anything is claimed, unless
    // it is the same request from its owner (whoever serves the shard tells the earlier call).
    if (before && before.listener !== listener) checkTakeOver(request, before.request);
    this.onFind?.(shard);
    const tickets = this.tickets;
    // Forgotten once answered for good: the shard's gateway answers through `relayed`.
    const forget = () => tickets.get(request.ticketId)?.relayed === relayed && tickets.delete(request.ticketId);
    const players = request.party.map((p) => p.playerId);
    // Failures here, before the owner saw the find, give back what its claim took; the owner frees it otherwise.
    let undo: (() => Promise<void>) | undefined;
    const unclaim = () => void undo?.().catch(() => undefined);
    const ownerAddress = this.ownerAddress;
    const relayed: TicketListener = {
      update(update, ticketId) {
        // A ticket that crossed to another node's shard tells its client where that shard is,
        // once, so the client's next find of the factory can go there; one in process pays one test.
        let hint: string | undefined;
        if (!held.local && !held.hinted && ownerAddress) {
          hint = ownerAddress(shard);
          held.hinted = hint !== undefined;
        }
        // Assigned: the owner's core freed the claim with the commit that assigned it, or, for a
        // retry answered from the assignment an owner kept, whoever answered it (keptAnswered).
        // It was also freed here, on every assignment: a second release of every ticket's keys.
        if (update.kind === 'assigned') forget();
        listener.update(update, ticketId, hint);
      },
      fail(error, ticketId) {
        forget();
        listener.fail(error, ticketId);
      },
    };
    const held: HeldTicket = { shard, request, listener, relayed, local: false, hinted: false };
    tickets.set(request.ticketId, held);
    const relay = () => {
      held.local = false;
      try {
        this.shards[shard]!.find(request, relayed);
      } catch (error) {
        unclaim();
        relayed.fail(error as MatchmakingError, request.ticketId);
      }
    };
    const forward = () => {
      if (tickets.get(request.ticketId) !== held) return unclaim(); // abandoned meanwhile
      const seat = this.local?.(shard);
      if (!seat?.serving) return relay();
      held.local = true;
      // The term ends before the last answer: to the shard's next owner, through the relay.
      seat.findHere(
        request,
        relayed,
        () => {
          if (tickets.get(request.ticketId) === held) relay();
          else if (!tickets.has(request.ticketId)) unclaim();
        },
        () => tickets.get(request.ticketId) === held,
      );
    };
    if (!this.claims) return forward();
    this.claims.claim(request.ticketId, shard, players).then(
      (answer) => {
        const conflict = answer.conflict;
        if (!conflict) {
          undo = answer.undo;
          return forward();
        }
        // As one node refuses it: the id's live ticket is another request (another factory).
        if (!('playerId' in conflict)) return relayed.fail(ticketIdReused(request.ticketId), request.ticketId);
        relayed.fail(new MatchmakingError('ALREADY_EXISTS', `party: player "${conflict.playerId}" is already finding a game in ticket "${conflict.ticketId}"`), request.ticketId);
      },
      (error: unknown) => relayed.fail(new MatchmakingError('UNAVAILABLE', `redis unreachable (${(error as Error)?.message ?? String(error)}): retry with the same ticket id`), request.ticketId),
    );
  }

  /**
   * The ticket's shard when this node holds its call; otherwise the shard its id's claim names
   * (nothing to cancel when no live ticket holds the id). Asking every shard made each cancel of
   * an id this node does not hold 64 inbox entries and 64 owner steps: a flood of unknown ids cost
   * Redis 64 times what it costs one node. Without shared claims (a test's cluster), every shard.
   */
  async cancel(ticketId: string, caller?: Principal): Promise<boolean> {
    const held = this.tickets.get(ticketId);
    const here = held?.local ? this.local?.(held.shard)?.cancelHere(ticketId, caller) : undefined;
    if (here) return here;
    let known = held?.shard;
    if (known === undefined && this.claims) {
      try {
        known = await this.claims.shardOf(ticketId);
      } catch (error) {
        throw new MatchmakingError('UNAVAILABLE', `redis unreachable (${(error as Error)?.message ?? String(error)}): retry the CancelFind`);
      }
      if (known === undefined) return false;
    }
    const asked = known === undefined ? this.shards : [this.shards[known]!];
    const answers = await Promise.allSettled(asked.map((g) => g.cancel(ticketId, caller)));
    const refused = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected' && (a.reason as MatchmakingError).code === 'PERMISSION_DENIED');
    if (refused) throw refused.reason;
    if (answers.some((a) => a.status === 'fulfilled' && a.value)) return true;
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (failed) throw failed.reason;
    return false;
  }

  abandon(ticketId: string, listener: TicketListener): void {
    const held = this.tickets.get(ticketId);
    if (held?.listener !== listener) return;
    this.tickets.delete(ticketId);
    if (held.local) this.local?.(held.shard)?.abandonHere(ticketId, held.relayed);
    else this.shards[held.shard]!.abandon(ticketId, held.relayed);
  }

  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    const unknown = this.registry.unknownTemplates(hello.templates);
    if (unknown.length > 0) throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    const hostable = this.registry.hostable(hello.attributes, hello.templates).map((i) => i.name);
    const shardIds = [...new Set(hostable.map((f) => this.shardOf(f)))].sort((a, b) => a - b);
    this.servers.get(hello.serverId)?.channel.close(new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`));
    const shards = new ServerShards(hello, shardIds, (f) => this.shardOf(f), Date.now, () => this.demandNow);
    const connection: Connection = { hello, channel, shards, parts: new Map(), here: new Set() };
    this.servers.set(hello.serverId, connection);
    for (const [shard, shardHello] of shards.hellos()) {
      try {
        this.attach(connection, shard, shardHello);
      } catch (error) {
        this.disconnectServer(hello.serverId, channel);
        throw error;
      }
    }
    return hostable;
  }

  /** The server announced to one shard: in process when this node's seat serves it, else through its relay. */
  private attach(connection: Connection, shard: number, shardHello: ServerHello): void {
    const { hello, channel, shards } = connection;
    const current = () => this.servers.get(hello.serverId) === connection;
    // The term of this node's seat ended: the shard's next owner is told through the relay, once.
    const moved = (ended: string) => {
      if (!current() || !connection.here.delete(shard)) return;
      const relay = this.shards[shard]!;
      try {
        if (relay.adoptServer) relay.adoptServer(shards.helloOf(shard), part, ended);
        else relay.connectServer(shards.helloOf(shard), part);
      } catch (error) {
        part.close(error as MatchmakingError);
      }
    };
    // In process when this node's seat serves the shard: no inbox, no out stream.
    const here = (shardHello: ServerHello): boolean => {
      const seat = this.local?.(shard);
      if (!seat?.serving) return false;
      connection.here.add(shard);
      seat.connectHere(shardHello, part, moved);
      return true;
    };
    // `reannounce`: when the shard's owner changes, its gateway tells the new owner of the
    // server with this hello (the shard's games as the server's events left them), so the
    // server's stream, and the other shards' view of it, stay as they are. When the new owner
    // is this node's seat, it is told in process instead (undefined: the relay lets it go).
    const part: ServerChannel & { reannounce(): ServerHello | undefined } = {
      reannounce: () => {
        // Held by this node's seat: when its term ends, `moved` tells the next owner.
        if (connection.here.has(shard)) return undefined;
        const shardHello = shards.helloOf(shard);
        return current() && here(shardHello) ? undefined : shardHello;
      },
      send: (order) => {
        if (!current()) return;
        const refused = shards.ordered(shard, order);
        if (refused) return void queueMicrotask(() => current() && this.toShard(connection, shard, refused));
        channel.send(order);
      },
      close: (error) => {
        if (!current()) return;
        this.disconnectServer(hello.serverId, channel);
        channel.close(error);
      },
    };
    connection.parts.set(shard, part);
    if (!here(shardHello)) this.shards[shard]!.connectServer(shardHello, part);
  }

  disconnectServer(serverId: string, channel: ServerChannel): void {
    const connection = this.servers.get(serverId);
    if (connection?.channel !== channel) return;
    this.servers.delete(serverId);
    for (const [shard, part] of connection.parts) {
      if (connection.here.delete(shard)) this.local?.(shard)?.byeHere(serverId, part);
      else this.shards[shard]!.disconnectServer(serverId, part);
    }
  }

  onServerEvent(serverId: string, event: ServerEvent): void {
    const connection = this.servers.get(serverId);
    if (!connection) throw new MatchmakingError('FAILED_PRECONDITION', `server ${serverId} has not said hello on this node`);
    for (const [shard, routed] of connection.shards.route(event)) this.toShard(connection, shard, routed);
  }

  /**
   * One round of the slow grant loop over the servers connected here: their slots re-apportioned
   * to their shards by `demand` (src/sharding/slot-apportion.ts), each shard whose grant moved
   * told its new capacity. Returns how many grants moved.
   */
  regrant(demand: ReadonlyMap<number, ShardDemand>, options?: ApportionOptions): number {
    this.demandNow = demand;
    const connections = [...this.servers.values()];
    const { grants } = apportionSlots(connections.map((c) => c.shards.slots()), demand, options);
    let moved = 0;
    for (const connection of connections) {
      for (const [shard, event] of connection.shards.regranted(grants.get(connection.shards.serverId))) {
        moved++;
        this.toShard(connection, shard, event);
      }
    }
    return moved;
  }

  /** A server's event for one shard: to this node's seat in process when it serves the shard, else through the relay. */
  private toShard(connection: Connection, shard: number, event: ServerEvent): void {
    const serverId = connection.shards.serverId;
    try {
      if (connection.here.has(shard)) this.local?.(shard)?.eventHere(serverId, event, connection.parts.get(shard)!);
      else this.shards[shard]!.onServerEvent(serverId, event);
    } catch (error) {
      this.log.warn({ serverId, shard, event: event.kind, error: (error as Error).message }, 'sharded gateway: an event was not relayed');
    }
  }

  beginShutdown(): void {
    for (const shard of this.shards) shard.beginShutdown();
  }
}
