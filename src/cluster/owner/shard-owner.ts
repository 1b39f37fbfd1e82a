import { buildCore, type CoreEnvironment } from '../../app/build-core.js';
import type { CoreHost } from '../../app/core-host.js';
import { LocalDelivery, PlayerClaims } from '../in-process/index.js';
import type { CoordinatorConfig } from '../../config/config.js';
import type { Effect } from '../../coordinator/effects.js';
import type { Assignment, FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener, TicketUpdate } from '../../coordinator/messages.js';
import { MatchmakingError } from '../../errors/index.js';
import { checkTakeOver } from '../../coordinator/tickets/restored-tickets.js';
import { shardIdPrefix } from '../../sharding/creation-ids.js';
import type { KeptAssignment, ShardState, ShardStore, Term } from '../store/shard-store.js';
import { FencedTickets } from './fenced-tickets.js';

export interface ShardOwnerOptions {
  readonly term: Term;
  readonly config: CoordinatorConfig;
  readonly environment: CoreEnvironment;
  readonly store: ShardStore;
  /** What the previous owners committed. */
  readonly restored: ShardState;
  readonly serves: (factory: string) => boolean;
  /** For this long a new owner lets finds wait for their factory's servers, which are reconnecting to it. */
  readonly awaitServersMs: number;
  /**
   * A planted bug, for the simulator's proof that it finds one: an owner that gives its shard up
   * when Redis does not answer a commit, and writes nothing back when its lease comes back empty
   * (what this owner did before the simulator found it). Never set outside the simulator.
   */
  readonly plantedBug?: 'forget-on-redis-restart';
  /** Whether the node still holds this term (its keeper has not let it go). */
  readonly holding: (term: Term) => boolean;
  /** The lease was found free under this owner's term: take it again (ClusterNode asks its LeaseKeeper). */
  readonly retake: (term: Term) => Promise<Term | undefined>;
  /** The term ended under this owner (a commit was refused or could not be made). */
  readonly ended: (term: Term, reason: string) => void;
}

/** Told to a client or a server whose shard's owner stopped: it resumes (same ticket id) or links again, at the new owner. */
const moved = (shard: number, reason: string) => new MatchmakingError('UNAVAILABLE', `shard ${shard} changed owner (${reason}): call again with the same ticket id`, 250);

/**
 * Everything live for one shard during one term of its lease: the shard's core (built by the same
 * builder as the embedded coordinator's), the streams of its tickets' clients, and the links of the
 * game servers it places games on. Its writes are fenced by the term and committed before anyone
 * is told or ordered anything; the first refused commit stops it, and its successor rebuilds from
 * what was committed plus the servers' re-announcements.
 */
export class ShardOwner {
  readonly host: CoreHost;
  private readonly tickets: FencedTickets;
  private readonly claims: PlayerClaims;
  /** Clients and servers to tell that this term is over. */
  private readonly listeners = new Set<TrackedListener>();
  private readonly channels = new Set<ServerChannel>();
  /** Assignments committed by this shard's earlier owners, for clients resuming a ticket that was answered. */
  private readonly kept: Map<string, KeptAssignment>;
  private stopped = false;
  private currentTerm: Term;
  /** A player's claim outlives its ticket's time to live, so one left by an owner that died expires on its own. */
  private readonly claimTtlMs: number;
  /** The requests of the tickets found here, for the assignments kept with them (dropped once kept). */
  private readonly requests = new Map<string, FindRequest>();
  private readonly restoredRequests: ReadonlyMap<string, FindRequest>;

  constructor(private readonly options: ShardOwnerOptions) {
    const { term, store, config, environment } = options;
    this.currentTerm = term;
    this.claimTtlMs = config.placement.ticketTtlMs + 60_000;
    this.kept = new Map(options.restored.kept.map((k) => [k.ticketId, k]));
    this.restoredRequests = new Map(options.restored.records.map((r) => [r.request.ticketId, r.request]));
    this.tickets = new FencedTickets({
      store,
      term,
      retake: options.retake,
      claimTtlMs: this.claimTtlMs,
      holding: () => !this.stopped && options.holding(this.currentTerm) && options.plantedBug === undefined,
      pause: (ms) => new Promise((resolve) => environment.timers.set(resolve, ms)),
      failed: (error) => this.stop(`a commit failed: ${(error as Error).message}`),
      writeBack: options.plantedBug === undefined,
    });
    this.tickets.restored(options.restored.records, options.restored.kept);
    // The shard's own claims, and the cluster's once this step's commit holds the ticket's end.
    this.claims = new PlayerClaims((ticketId, playerIds) => {
      const committed = this.tickets.inFlight();
      const unclaim = () => void store.unclaim(ticketId, playerIds).catch(() => undefined); // a claim left behind expires
      if (committed) committed.then(unclaim, () => undefined);
      else unclaim();
    });
    const ttlMs = config.placement.ticketTtlMs;
    this.host = buildCore(config, environment, {
      store: this.tickets,
      restored: options.restored.records,
      orders: new LocalDelivery(),
      players: this.claims,
      storeInFlight: true,
      storeInFlightAtOnce: true,
      awaitServersMs: options.awaitServersMs,
      idPrefix: shardIdPrefix(term.shard),
      serves: options.serves,
      fenced: true,
      seen: (effect: Effect) => {
        if (effect.kind === 'update' && effect.update.kind === 'assigned') {
          const request = this.requests.get(effect.ticketId) ?? this.restoredRequests.get(effect.ticketId);
          this.requests.delete(effect.ticketId);
          if (request) this.tickets.keep({ ticketId: effect.ticketId, assignment: effect.update.assignment, request, until: environment.now() + ttlMs });
        } else if (effect.kind === 'fail') {
          this.requests.delete(effect.ticketId);
        }
      },
      afterStep: () => this.tickets.flush(),
    });
  }

  get term(): Term {
    return this.currentTerm;
  }

  /** This node holds the shard again under a new term (its lease was found free): everything is written back under it. */
  reterm(next: Term): void {
    this.currentTerm = next;
    this.tickets.adopt(next);
  }

  /** A find (new, or resumed with its ticket id) for a factory of this shard. Claims its players cluster-wide first. */
  async find(request: FindRequest, listener: TicketListener): Promise<void> {
    const kept = this.kept.get(request.ticketId);
    if (kept) {
      // The same request from its owner, as the core checks a retry; anyone else learns nothing of it.
      checkTakeOver(request, kept.request);
      return listener.update({ kind: 'assigned', assignment: kept.assignment }, request.ticketId);
    }
    const conflict = await this.options.store.claim(request.ticketId, request.party.map((p) => p.playerId), this.claimTtlMs);
    if (this.stopped) return listener.fail(moved(this.term.shard, 'while claiming its players'), request.ticketId);
    if (conflict) {
      return listener.fail(new MatchmakingError('ALREADY_EXISTS', `party: player "${conflict.playerId}" is already finding a game in ticket "${conflict.ticketId}"`), request.ticketId);
    }
    const tracked = new TrackedListener(listener, request.ticketId, this.listeners, () => this.mayTell());
    this.requests.set(request.ticketId, request);
    try {
      this.host.find(request, tracked);
    } catch (error) {
      tracked.finish();
      throw error;
    }
  }

  cancel(ticketId: string, caller: Parameters<CoreHost['cancel']>[1]): boolean {
    return this.host.cancel(ticketId, caller);
  }

  link(hello: ServerHello, channel: ServerChannel): string[] {
    const factories = this.host.connectServer(hello, channel);
    this.channels.add(channel);
    return factories;
  }

  unlink(serverId: string, channel: ServerChannel): void {
    this.channels.delete(channel);
    this.host.disconnectServer(serverId, channel);
  }

  serverEvent(serverId: string, event: ServerEvent): void {
    this.host.onServerEvent(serverId, event);
  }

  /**
   * Whether what this owner committed may still be told: a process paused past its lease (a GC
   * pause, SIGSTOP) hears its commits answered only once it runs again, by which time another
   * node may own the shard and the game may be over; it stops instead, and the client resumes at
   * the shard's owner now.
   */
  private mayTell(): boolean {
    if (this.stopped) return false;
    if (this.options.holding(this.currentTerm)) return true;
    this.stop('not renewed within the lease');
    return false;
  }

  /** The term is over (lost, handed over, or a commit refused): nothing more is told, ordered or written. */
  stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.host.close();
    const error = moved(this.term.shard, reason);
    for (const listener of [...this.listeners]) listener.failQuietly(error);
    for (const channel of [...this.channels]) channel.close(error);
    this.listeners.clear();
    this.channels.clear();
    this.options.ended(this.term, reason);
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

/**
 * A ticket's listener, known to its owner until its ticket is answered or ended. Once the owner
 * stopped, it passes nothing on: what a step held for its commit may still be released after the
 * term ended, and the client has been told to call again.
 */
class TrackedListener implements TicketListener {
  private silenced = false;

  constructor(
    private readonly inner: TicketListener,
    private readonly ticketId: string,
    private readonly live: Set<TrackedListener>,
    /** False once the owner may no longer speak for the shard (it then stops, and this is told to call again). */
    private readonly mayTell: () => boolean,
  ) {
    live.add(this);
  }

  update(update: TicketUpdate, ticketId: string, ownerAddress?: string): void {
    if (this.silenced || !this.mayTell()) return;
    if (update.kind === 'assigned') this.finish();
    this.inner.update(update, ticketId, ownerAddress);
  }

  fail(error: MatchmakingError, ticketId: string): void {
    if (this.silenced || !this.mayTell()) return;
    this.finish();
    this.inner.fail(error, ticketId);
  }

  /** The owner stopped: the client is told to call again, and hears nothing more from here. */
  failQuietly(error: MatchmakingError): void {
    this.finish();
    this.inner.fail(error, this.ticketId);
    this.silenced = true;
  }

  finish(): void {
    this.live.delete(this);
  }
}
