import type { SliceResult, SliceTask } from '../competitive/index.js';
import type { MatchmakingError } from '../errors/index.js';
import type { RecordedResult } from '../ratings/rating-store.js';
import type { CoordinatorEventMap, CoordinatorEventType } from './edges/events.js';
import type { Log } from './log.js';
import type { ServerChannel, ServerOrder, TicketListener, TicketUpdate } from './messages.js';
import type { BackfillRecord } from './backfill/backfill-record.js';
import type { TicketRecord } from './tickets/ticket-record.js';
import type { MatchBatchRequest } from './match-functions/match-batch.js';

/** A happening for metrics, the operator page and logs (CoordinatorEvents at the edge). */
export type EventEffect = {
  [K in CoordinatorEventType]: { readonly kind: 'event'; readonly type: K; readonly event: CoordinatorEventMap[K] };
}[CoordinatorEventType];

/**
 * What one input of the core says must happen, in order. The core decides; the edge that runs it
 * (the embedded process, a cluster node) performs each effect once, in order, and can make one
 * step's writes atomic (one LMDB transaction, one fenced Redis MULTI). Listeners and channels are
 * the edge's own handles, passed in with the input and handed back here: the core never calls them.
 */
export type Effect =
  /** Tell a ticket's listener (the client's stream) where it stands. */
  | { readonly kind: 'update'; readonly listener: TicketListener; readonly ticketId: string; readonly update: TicketUpdate }
  /** The ticket ended without an assignment (or this listener was replaced by a newer call). */
  | { readonly kind: 'fail'; readonly listener: TicketListener; readonly ticketId: string; readonly error: MatchmakingError }
  /** An order for a game server, wherever its stream is; a repeated `orderId` is sent once. */
  | { readonly kind: 'order'; readonly serverId: string; readonly orderId: string; readonly order: ServerOrder }
  /** Orders for `serverId` go to `channel` from now on (before any order of this step for it). */
  | { readonly kind: 'link'; readonly serverId: string; readonly channel: ServerChannel }
  /** `channel` no longer takes orders for `serverId` (unless a newer one replaced it already). */
  | { readonly kind: 'unlink'; readonly serverId: string; readonly channel: ServerChannel }
  /** End a server's stream (a newer connection with its id replaced it). */
  | { readonly kind: 'close'; readonly serverId: string; readonly channel: ServerChannel; readonly error: MatchmakingError }
  /** Keep a waiting ticket so a restart gives it its place back. */
  | { readonly kind: 'store'; readonly record: TicketRecord }
  /** Forget a stored ticket (assigned, or ended). */
  | { readonly kind: 'unstore'; readonly ticketId: string }
  /** Keep an open backfill request so a restart takes it up again (BackfillStore). */
  | { readonly kind: 'storeBackfill'; readonly record: BackfillRecord }
  | { readonly kind: 'unstoreBackfill'; readonly backfillId: string }
  /** The ticket's claim on its players (one live ticket per player, checked by the edge) ends. */
  | { readonly kind: 'release'; readonly ticketId: string; readonly playerIds: readonly string[] }
  /** Write a game's new ratings; its outcome comes back as the input `resultRecorded`. */
  | { readonly kind: 'recordResult'; readonly result: RecordedResult }
  /** Solve a competitive batch's slices off the core's thread; the answer comes back as `batchSolved`. */
  | { readonly kind: 'solve'; readonly factory: string; readonly batch: string; readonly tasks: readonly SliceTask[] }
  /** Ask a factory's match function for games; the answer comes back as `matchBatchAnswered`. */
  | { readonly kind: 'matchBatch'; readonly factory: string; readonly batch: string; readonly address: string; readonly timeoutMs: number; readonly request: MatchBatchRequest }
  | EventEffect
  | { readonly kind: 'log'; readonly level: 'info' | 'warn' | 'debug'; readonly fields: object; readonly message: string };

/** What an input of the core returns: its effects, and when the core wants to be called next. */
export interface Step {
  readonly effects: readonly Effect[];
  /** The time to call `advance` at (the earliest deadline), if the core waits for one. */
  readonly wakeAt: number | undefined;
}

/** Slices solved off the core's thread, or why they could not be. */
export type SolvedBatch = { readonly results: readonly SliceResult[] } | { readonly error: string };

const NONE: readonly Effect[] = Object.freeze([]);

/**
 * Where the core's parts write the effects of the input being handled; the core takes them at
 * the end of the step. It is also the core's Log: a log line is an effect like any other.
 */
export class EffectLog implements Log {
  private effects: Effect[] | undefined;

  /** The effects written since the last take, in order. */
  take(): readonly Effect[] {
    const effects = this.effects;
    this.effects = undefined;
    return effects ?? NONE;
  }

  push(effect: Effect): void {
    (this.effects ??= []).push(effect);
  }

  update(listener: TicketListener | undefined, ticketId: string, update: TicketUpdate): void {
    if (listener) this.push({ kind: 'update', listener, ticketId, update });
  }

  fail(listener: TicketListener | undefined, ticketId: string, error: MatchmakingError): void {
    if (listener) this.push({ kind: 'fail', listener, ticketId, error });
  }

  order(serverId: string, orderId: string, order: ServerOrder): void {
    this.push({ kind: 'order', serverId, orderId, order });
  }

  event<K extends CoordinatorEventType>(type: K, event: CoordinatorEventMap[K]): void {
    this.push({ kind: 'event', type, event } as EventEffect);
  }

  info(fields: object, message: string): void {
    this.push({ kind: 'log', level: 'info', fields, message });
  }

  warn(fields: object, message: string): void {
    this.push({ kind: 'log', level: 'warn', fields, message });
  }

  debug(fields: object, message: string): void {
    this.push({ kind: 'log', level: 'debug', fields, message });
  }
}
