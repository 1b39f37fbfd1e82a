import type { OrderDelivery, PlayerIndex } from '../cluster/ports.js';
import type { SliceSolver } from '../competitive/index.js';
import type { CoordinatorConfig } from '../config/config.js';
import type { ReloadOutcome } from '../coordinator/config-reload.js';
import type { CoordinatorCore } from '../coordinator/coordinator-core.js';
import type { Effect, Step } from '../coordinator/effects.js';
import type { CoordinatorCommands } from '../coordinator/edges/commands.js';
import type { EventHub } from '../coordinator/edges/events.js';
import type { CoordinatorView } from '../coordinator/edges/view.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../coordinator/messages.js';
import type { BackfillStore } from '../coordinator/backfill/backfill-record.js';
import type { Log, TicketStore, Timers } from '../coordinator/ports.js';
import type { MatchFunctionPort } from '../coordinator/match-functions/match-function-port.js';
import { MatchmakingError } from '../errors/index.js';
import type { RatingStore } from '../ratings/rating-store.js';
import type { Principal } from '../security/tokens/principal.js';
import { TOLD, TOLD_OR_ORDERED, ToldAfterWrites } from './told-after-writes.js';

/** Where a host applies effects: the process's (or a cluster node's) side of the core. */
export interface HostParts {
  readonly now: () => number;
  /** The one timer of the host: armed at the core's next deadline. */
  readonly timers: Timers;
  readonly log: Log;
  /** One live ticket per player, claimed here before a find enters the core. */
  readonly players: PlayerIndex;
  /** Orders to game servers, through the stream each server is linked on. */
  readonly orders: OrderDelivery;
  /** Waiting tickets kept across restarts; none: nothing is stored. */
  readonly store?: TicketStore;
  /** Open backfill requests kept across restarts (with the tickets: the same commits); none: not stored. */
  readonly backfills?: BackfillStore;
  /** Where `recordResult` effects are written (the store the core reads). */
  readonly ratings: RatingStore;
  /** Solves the slices of `solve` effects off the event loop (worker threads). */
  readonly workers?: SliceSolver;
  /** Where `event` effects go: metrics, the operator page, logs subscribe here. */
  readonly events: EventHub;
  /** Asks factories' match functions (`matchBatch` effects); none: every such batch falls back. */
  readonly matchFunctions?: MatchFunctionPort;
  /** Called once a step's effects are all applied (a cluster owner commits the step's writes then). */
  readonly afterStep?: () => void;
  /**
   * A cluster shard's owner: orders wait for the commit of the writes before them as tells do, and
   * a failed commit (the term is over) tells and orders nothing of what waited on it.
   */
  readonly fenced?: boolean;
  /** Sees every effect as the step makes it, before anything is held (a cluster owner keeps assignments in the step's commit). */
  readonly seen?: (effect: Effect) => void;
}

/**
 * The edge that runs a CoordinatorCore: each call of the transport (CoordinatorCommands) becomes
 * an input with the current time, and its Step is applied here, effect by effect, in order, once.
 * One timer follows the core's next deadline. The two asynchronous effects (a result to write, a
 * batch to solve on workers) come back as inputs when they are done. Effects of an input that
 * arrives while another step is being applied (a closed stream reporting itself gone) are applied
 * after the ones already queued, so the order of effects is always the order of steps.
 *
 * Every effect of one step is applied in the same synchronous run: LMDB puts in one event turn
 * share one transaction (lmdb-js README, `put`: "Any other operations that occur within the
 * current event turn ... will also occur in the same transaction"), and a cluster owner's fenced
 * writes of a step go out in one MULTI. What the step tells clients waits for the commit of the
 * writes before it (ToldAfterWrites), so no place a client was told of is lost to a kill -9.
 */
export class CoreHost implements CoordinatorCommands {
  private readonly queue: (readonly Effect[])[] = [];
  private applying = false;
  private wakeAt = Infinity;
  private cancelWake: (() => void) | undefined;
  private closed = false;
  /** With a store that commits in the background (LMDB): what a step tells clients waits for its writes. */
  private readonly telling: ToldAfterWrites | undefined;
  /** The effects that wait for the writes before them. */
  private readonly held: ReadonlySet<Effect['kind']>;

  constructor(
    readonly core: CoordinatorCore,
    /** What the effects are applied to (the same environment for every core a process builds). */
    readonly parts: HostParts,
  ) {
    const store = parts.store;
    this.telling = store?.inFlight ? new ToldAfterWrites(() => store.inFlight!(), (effect) => this.performNow(effect), parts.fenced === true) : undefined;
    this.held = parts.fenced ? TOLD_OR_ORDERED : TOLD;
    this.apply(core.advance(parts.now()));
  }

  get view(): CoordinatorView {
    return this.core.view;
  }

  // ---------------------------------------------------------------- inputs

  find(request: FindRequest, listener: TicketListener): void {
    const conflict = this.parts.players.claim(request.ticketId, request.party.map((p) => p.playerId));
    if (conflict) {
      throw new MatchmakingError('ALREADY_EXISTS', `party: player "${conflict.playerId}" is already finding a game in ticket "${conflict.ticketId}"`);
    }
    const step = this.core.find(this.parts.now(), request, listener);
    this.apply(step);
    if (step.refused) throw step.refused;
  }

  cancel(ticketId: string, caller?: Principal): boolean {
    const step = this.core.cancel(this.parts.now(), ticketId, caller);
    this.apply(step);
    if (step.refused) throw step.refused;
    return step.cancelled;
  }

  respondToMatch(ticketId: string, matchId: string, accept: boolean, caller?: Principal): boolean {
    const step = this.core.respondToMatch(this.parts.now(), ticketId, matchId, accept, caller);
    this.apply(step);
    if (step.refused) throw step.refused;
    return step.complete;
  }

  abandon(ticketId: string, listener: TicketListener): void {
    this.apply(this.core.abandon(this.parts.now(), ticketId, listener));
  }

  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    const step = this.core.connectServer(this.parts.now(), hello, channel);
    this.apply(step);
    if (step.refused) throw step.refused;
    return [...step.factories];
  }

  disconnectServer(serverId: string, channel: ServerChannel): void {
    this.apply(this.core.disconnectServer(this.parts.now(), serverId, channel));
  }

  onServerEvent(serverId: string, event: ServerEvent): void {
    this.apply(this.core.serverEvent(this.parts.now(), serverId, event));
  }

  /** A new configuration for the core: applied whole, or refused whole with every reason. */
  reload(config: CoordinatorConfig): ReloadOutcome {
    const step = this.core.reload(this.parts.now(), config);
    this.apply(step);
    return 'refused' in step ? { refused: step.refused } : { changes: step.changes };
  }

  /** Why `config` would be refused (empty: it would apply); changes nothing. */
  reloadProblems(config: CoordinatorConfig): readonly string[] {
    return this.core.reloadProblems(config);
  }

  beginShutdown(): void {
    this.apply(this.core.beginShutdown(this.parts.now()));
  }

  /** This host stops: no more timers, and late answers (results, batches) are dropped. */
  close(): void {
    this.closed = true;
    this.cancelWake?.();
    this.cancelWake = undefined;
  }

  // ---------------------------------------------------------------- effects

  private apply(step: Step): void {
    if (this.closed) return;
    if (step.effects.length > 0) this.queue.push(step.effects);
    if (this.applying) return;
    this.applying = true;
    try {
      for (let s = 0; s < this.queue.length; s++) {
        for (const effect of this.queue[s]!) this.perform(effect);
      }
    } finally {
      this.queue.length = 0;
      this.applying = false;
    }
    this.arm(this.core.nextWakeAt());
    this.parts.afterStep?.();
  }

  private perform(effect: Effect): void {
    this.parts.seen?.(effect);
    if (this.telling && (this.held.has(effect.kind) || isBackfillStatus(effect))) this.telling.tellOrHold(effect);
    else this.performNow(effect);
  }

  private performNow(effect: Effect): void {
    const parts = this.parts;
    try {
      switch (effect.kind) {
        case 'update':
          return effect.listener.update(effect.update, effect.ticketId);
        case 'fail':
          return effect.listener.fail(effect.error, effect.ticketId);
        case 'order':
          parts.orders.deliver(effect.serverId, { orderId: effect.orderId, order: effect.order });
          return;
        case 'link':
          return parts.orders.attach(effect.serverId, effect.channel);
        case 'unlink':
          return parts.orders.detach(effect.serverId, effect.channel);
        case 'close':
          return effect.channel.close(effect.error);
        case 'store':
          return parts.store?.save(effect.record);
        case 'unstore':
          return parts.store?.remove(effect.ticketId);
        case 'storeBackfill':
          return parts.backfills?.save(effect.record);
        case 'unstoreBackfill':
          return parts.backfills?.remove(effect.backfillId);
        case 'release':
          return parts.players.release(effect.ticketId, effect.playerIds);
        case 'event':
          return parts.events.emit(effect.type, effect.event as never);
        case 'log':
          return parts.log[effect.level](effect.fields, effect.message);
        case 'recordResult': {
          const { gameId } = effect.result;
          parts.ratings.recordResult(effect.result).then(
            (recorded) => this.answer((now) => this.core.resultRecorded(now, gameId, { recorded })),
            (error: unknown) => this.answer((now) => this.core.resultRecorded(now, gameId, { error: String(error) })),
          );
          return;
        }
        case 'matchBatch': {
          const { factory, batch } = effect;
          const asked = parts.matchFunctions ? parts.matchFunctions.propose(effect.address, effect.request, effect.timeoutMs) : Promise.reject(new Error('no match-function client'));
          asked.then(
            (games) => this.answer((now) => this.core.matchBatchAnswered(now, factory, batch, { games })),
            (error: unknown) => this.answer((now) => this.core.matchBatchAnswered(now, factory, batch, { error: error instanceof Error ? error.message : String(error) })),
          );
          return;
        }
        case 'solve': {
          const { factory, batch, tasks } = effect;
          const workers = parts.workers;
          const solved = workers ? Promise.all(tasks.map((task) => workers.solve(task))) : Promise.reject(new Error('no worker threads'));
          solved.then(
            (results) => this.answer((now) => this.core.batchSolved(now, factory, batch, { results })),
            (error: unknown) => this.answer((now) => this.core.batchSolved(now, factory, batch, { error: String(error) })),
          );
          return;
        }
      }
    } catch (error) {
      // An edge that throws (a stream already gone) must not stop the step's other effects.
      parts.log.warn({ err: error, effect: effect.kind }, 'applying an effect of the core failed');
    }
  }

  /** An asynchronous effect is done: its outcome is an input like any other. */
  private answer(input: (now: number) => Step): void {
    if (!this.closed) this.apply(input(this.parts.now()));
  }

  /** One timer, at the core's next deadline; a later deadline keeps the earlier timer (it finds nothing due and re-arms). */
  private arm(at: number | undefined): void {
    if (this.closed || at === undefined || at >= this.wakeAt) return;
    this.cancelWake?.();
    this.wakeAt = at;
    this.cancelWake = this.parts.timers.set(() => {
      this.wakeAt = Infinity;
      this.cancelWake = undefined;
      this.apply(this.core.advance(this.parts.now()));
    }, at - this.parts.now());
  }
}

/** A backfill request's status is told to its server, as a ticket's update to its client, once what it says is on disk. */
function isBackfillStatus(effect: Effect): boolean {
  return effect.kind === 'order' && effect.order.kind === 'backfillStatus';
}
