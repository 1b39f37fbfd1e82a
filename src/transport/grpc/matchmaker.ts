import type { Metadata, sendUnaryData, ServerDuplexStream, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import type { CoordinatorCommands, CoordinatorView } from '../../coordinator/edges/index.js';
import type { Assignment, TicketListener, TicketUpdate } from '../../coordinator/messages.js';
import type { Log } from '../../coordinator/ports.js';
import { MatchmakingError } from '../../errors/index.js';
import {
  PredicateMode,
  type CancelFindRequest,
  type CancelFindResponse,
  type FindGameRequest,
  type FindGamesRequest,
  type Assignment as WireAssignment,
  type FindGameUpdate,
  type QueryStatsRequest,
  type QueryStatsResponse,
  type RespondToMatchRequest,
  type RespondToMatchResponse,
} from '../../generated/gamefactory/v1/matchmaker.js';
import { valueKey } from '../../attributes/attribute-value.js';
import { LIMITS } from '../../attributes/limits.js';
import { checkId, checkKey, decodeAttributes, decodeFindRequest, decodeValue, encodeAssignment } from './codec.js';
import { asMatchmakingError, statusCode, toServiceError } from './status.js';
import { MAX_WAITING_CALLS, MAX_WAITING_INPUTS, type InputPacer } from './input-pacer.js';
import { StreamLifecycle } from './stream-lifecycle.js';
import { MAX_BATCH, TickOutbox } from './tick-outbox.js';
import { principalOf } from '../../security/interceptor/security-interceptor.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import type { FindTracing, TraceHeader } from '../../tracing/find-tracing.js';

export interface MatchmakerOptions {
  readonly now: () => number;
  readonly log: Log;
  /** A request was refused before it became a ticket (bad input, no server...). */
  readonly onRefused?: (code: number) => void;
  /** QueryStats for the whole cluster (a cluster node asks the factories' owners); absent, the view answers. */
  readonly clusterStats?: (query: StatsQuery, now: number) => Promise<StatsAnswer>;
  /** Where finds and cancels wait their turn with the game servers' reports, in arrival order. */
  readonly pacer: InputPacer;
  /** Why a new ticket is refused when its turn comes (the store gate's question, asked again), if it is. */
  readonly refuseNewTicket?: (ticketId: string) => MatchmakingError | undefined;
  /** Traces of finds (src/tracing), when they are on; absent, a find costs tracing nothing. */
  readonly tracing?: FindTracing;
}

/** A call refused because too many inputs wait their turn already (InputPacer.full). */
const overloaded = () => new MatchmakingError('RESOURCE_EXHAUSTED', `the coordinator is overloaded: more than ${MAX_WAITING_CALLS} requests wait to be handled; retry`, 1000);

/** Runs a deferred piece of a call (the pacer's handler for inputs that are closures). */
const runNow = (fn: () => void): void => fn();

/**
 * The last assignment put on the wire and its wire form: the parties of a game are told the same
 * assignment one after another, and share one wire object, which update-encoding.ts then
 * encodes once for all of them.
 */
let lastAssignment: Assignment | undefined;
let lastWire: WireAssignment | undefined;

function wireAssignment(assignment: Assignment): WireAssignment {
  if (assignment !== lastAssignment || lastWire === undefined) {
    lastWire = encodeAssignment(assignment);
    lastAssignment = assignment;
  }
  return lastWire;
}

/**
 * A count or duration as the wire's uint32 takes it. The encoder throws on anything else, and a
 * throw there ends the whole FindGames stream (every ticket on it, INTERNAL "Error serializing
 * response"): one bad figure must not cost other tickets their answers.
 */
const uint32 = (n: number): number => (n >= 0 ? Math.min(Math.floor(n), 0xffffffff) : 0);

function toWire(ticketId: string, update: TicketUpdate, ownerAddress: string | undefined): FindGameUpdate {
  if (update.kind === 'proposed') {
    const p = update.proposal;
    const proposed = { matchId: p.matchId, factory: p.factory, expiresInMs: uint32(p.expiresInMs), players: uint32(p.players), acceptedPlayers: uint32(p.acceptedPlayers) };
    return { ticketId, update: { $case: 'proposed', value: proposed }, ...(ownerAddress && { ownerAddress }) };
  }
  const wire: FindGameUpdate =
    update.kind === 'queued'
      ? {
          ticketId,
          update: {
            $case: 'queued',
            value: {
              factory: update.factory,
              position: uint32(update.position),
              estimatedWaitMs: uint32(update.estimatedWaitMs ?? 0),
              estimateUnknown: update.estimatedWaitMs === undefined,
            },
          },
        }
      : { ticketId, update: { $case: 'assignment', value: wireAssignment(update.assignment) } };
  // Only a relayed ticket's first update has one: the others go out as before.
  if (ownerAddress) wire.ownerAddress = ownerAddress;
  return wire;
}

// Shared by every forgotten request, frozen so no reader can fill them for the others.
const NO_PLAYERS = Object.freeze([]) as unknown as FindGameRequest['party'];
const NO_VALUES = Object.freeze({}) as FindGameRequest['partitionAttributes'];
const NO_LATENCIES = Object.freeze({}) as FindGameRequest['latenciesMs'];
const NO_NAMES = Object.freeze([]) as unknown as string[];

/**
 * grpc-js keeps a FindGame's request message for the whole call (the handler's closure and
 * `call.request`), that is for as long as the ticket waits; once decoded the ticket keeps its own
 * copy, so the wire one's party and attribute objects (~0.5 KB) are let go. Only the ticket id is
 * left for anything that reads the call afterwards.
 */
function forgetDecoded(wire: FindGameRequest): void {
  wire.party = NO_PLAYERS;
  wire.partitionAttributes = NO_VALUES;
  wire.matchableAttributes = NO_VALUES;
  wire.latenciesMs = NO_LATENCIES;
  wire.preferredMaps = NO_NAMES;
  wire.vetoedMaps = NO_NAMES;
  wire.location = undefined;
  wire.softAttributes = undefined;
}

/** A call's metadata as tracing reads its headers (`traceparent`, `tracestate`). */
function metadataHeader(metadata: Metadata): TraceHeader {
  return (name) => {
    const value = metadata.get(name)[0];
    return typeof value === 'string' ? value : undefined;
  };
}

/** The Matchmaker service: one handler per call shape. */
export function matchmakerHandlers(coordinator: CoordinatorCommands, view: CoordinatorView, options: MatchmakerOptions) {
  const refuse = (error: unknown): MatchmakingError | undefined => {
    options.onRefused?.(statusCode(error));
    if (error instanceof MatchmakingError) return error;
    options.log.warn({ err: error }, 'matchmaker request failed');
    return undefined;
  };

  /** FindGame: server streaming; queued updates, then one assignment, then OK. */
  const findGame = (call: ServerWritableStream<FindGameRequest, FindGameUpdate>): void => {
    const stream = new StreamLifecycle(call);
    const ticketId = call.request.ticketId;
    const tracing = options.tracing;
    const arrivedAt = tracing?.now();
    const listener: TicketListener = {
      update(update, _ticketId, ownerAddress) {
        stream.write(toWire(ticketId, update, ownerAddress));
        if (update.kind === 'assigned') stream.end();
      },
      fail(error) {
        stream.end(error);
      },
    };
    if (options.pacer.full) return listener.fail(refuse(overloaded())!, ticketId);
    stream.onGone(() => coordinator.abandon(ticketId, listener));
    options.pacer.push(runNow, () => {
      // Gone while it waited its turn: it never became a ticket.
      if (!stream.open) return forgetDecoded(call.request);
      try {
        const refused = options.refuseNewTicket?.(ticketId);
        if (refused) throw refused;
        const request = decodeFindRequest(call.request, principalOf(call.metadata));
        if (tracing) tracing.find(coordinator, request, listener, metadataHeader(call.metadata), arrivedAt, 'FindGame');
        else coordinator.find(request, listener);
      } catch (error) {
        refuse(error);
        listener.fail(asMatchmakingError(error), ticketId);
      }
      forgetDecoded(call.request);
    });
  };

  /**
   * FindGames: many tickets on one stream; a ticket's failure is an update, not the stream's end.
   * A client that batches (finds/cancels) gets its updates batched too, once per tick (one write instead of one per ticket).
   */
  const findGames = (call: ServerDuplexStream<FindGamesRequest, FindGameUpdate>): void => {
    /** This stream's tickets still waiting for their answer. */
    const pending = new Set<string>();
    const stream = new StreamLifecycle(call, true);
    const outbox = new TickOutbox<FindGameUpdate>((updates) => stream.write({ ticketId: '', update: { $case: 'batch', value: { updates } } }));
    /** Set by the first batched request; from then on updates leave in batches. */
    let batching = false;
    const send = (update: FindGameUpdate) => (batching ? outbox.push(update) : stream.write(update));
    const caller = principalOf(call.metadata);
    const tracing = options.tracing;
    const header = tracing && metadataHeader(call.metadata);
    /** The client half-closed: it sends no more tickets but still waits for its pending ones. */
    let clientDone = false;
    const endIfDone = () => {
      if (!clientDone || pending.size > 0) return;
      outbox.flush();
      stream.end();
    };
    const settled = (ticketId: string) => {
      pending.delete(ticketId);
      endIfDone();
    };
    // One listener for every ticket of the stream (the core names the ticket in each call): a
    // closure pair per waiting ticket was ~150 bytes of its memory.
    const listener: TicketListener = {
      update(update, ticketId, ownerAddress) {
        send(toWire(ticketId, update, ownerAddress));
        if (update.kind === 'assigned') settled(ticketId);
      },
      fail(error, ticketId) {
        send({ ticketId, update: { $case: 'error', value: { code: statusCode(error), message: error.message } } });
        settled(ticketId);
      },
    };
    const find = (wire: FindGameRequest) => {
      if (!stream.open) return; // gone while it waited its turn
      try {
        const refused = options.refuseNewTicket?.(wire.ticketId);
        if (refused) throw refused;
        const decoded = decodeFindRequest(wire, caller);
        pending.add(decoded.ticketId);
        // A find of the stream is traced from its turn: its arrival in a message is not timed.
        if (tracing) tracing.find(coordinator, decoded, listener, header!, undefined, 'FindGames');
        else coordinator.find(decoded, listener);
      } catch (error) {
        refuse(error);
        listener.fail(asMatchmakingError(error), wire.ticketId);
      }
    };
    const cancel = (ticketId: string) => {
      if (!stream.open) return;
      // Not this caller's ticket: that one cancel's error, the stream and the ticket go on.
      const refused = (error: unknown) => {
        const e = asMatchmakingError(error);
        send({ ticketId, update: { $case: 'error', value: { code: statusCode(e), message: e.message } } });
      };
      try {
        const answer = coordinator.cancel(ticketId, caller);
        // A cluster node answers later; the stream may have ended meanwhile.
        if (typeof answer !== 'boolean') answer.catch((error: unknown) => void Promise.resolve().then(() => refused(error)).catch(() => undefined));
      } catch (error) {
        refused(error);
      }
    };
    const refuseBatch = ({ finds, cancels }: { readonly finds: readonly FindGameRequest[]; readonly cancels: readonly unknown[] }) => {
      if (!stream.open) return;
      const error = new MatchmakingError('INVALID_ARGUMENT', `batch: ${finds.length + cancels.length} in one message; at most ${MAX_BATCH}`);
      refuse(error);
      for (const wire of finds) listener.fail(error, wire.ticketId);
    };
    const pacer = options.pacer;
    /** Reads held while this stream's inputs wait behind too many others. */
    let held = false;
    const letRead = () => {
      held = false;
      stream.releaseReads();
    };
    call.on('data', (message: FindGamesRequest) => {
      const request = message.request;
      if (request?.$case === 'find') pacer.push(find, request.value);
      else if (request?.$case === 'cancel') pacer.push(cancel, request.value.ticketId);
      else if (request?.$case === 'batch') {
        batching = true;
        const { finds, cancels } = request.value;
        if (finds.length + cancels.length > MAX_BATCH) pacer.push(refuseBatch, request.value);
        else {
          for (const wire of finds) pacer.push(find, wire);
          for (const { ticketId } of cancels) pacer.push(cancel, ticketId);
        }
      }
      if (!held && pacer.waiting > MAX_WAITING_INPUTS) {
        held = true;
        stream.holdReads();
        pacer.whenDrained(letRead);
      }
    });
    // The stream is gone: its waiting tickets are abandoned (cancelled unless resumed elsewhere).
    stream.onGone(() => {
      outbox.discard();
      for (const ticketId of pending) coordinator.abandon(ticketId, listener);
      pending.clear();
    });
    // After the finds that came before it have had their turn.
    const clientEnded = () => {
      clientDone = true;
      endIfDone();
    };
    call.on('end', () => pacer.push(clientEnded, undefined));
  };

  const cancelFind = (
    call: ServerUnaryCall<CancelFindRequest, CancelFindResponse>,
    callback: sendUnaryData<CancelFindResponse>,
  ): void => {
    if (options.pacer.full) return callback(toServiceError(refuse(overloaded())!));
    options.pacer.push(runNow, () => cancelOne(call, callback));
  };
  const cancelOne = (call: ServerUnaryCall<CancelFindRequest, CancelFindResponse>, callback: sendUnaryData<CancelFindResponse>): void => {
    try {
      checkId('ticket_id', call.request.ticketId);
      const answer = coordinator.cancel(call.request.ticketId, principalOf(call.metadata));
      if (typeof answer === 'boolean') return callback(null, { cancelled: answer });
      // A cluster node: the ticket's owner answers.
      answer.then(
        (cancelled) => callback(null, { cancelled }),
        (error: unknown) => callback(toServiceError(refuse(error) ?? error)),
      );
    } catch (error) {
      callback(toServiceError(refuse(error) ?? error));
    }
  };

  /** RespondToMatch: a ready check's answer, in turn with the finds and cancels before it. */
  const respondToMatch = (
    call: ServerUnaryCall<RespondToMatchRequest, RespondToMatchResponse>,
    callback: sendUnaryData<RespondToMatchResponse>,
  ): void => {
    if (options.pacer.full) return callback(toServiceError(refuse(overloaded())!));
    options.pacer.push(runNow, () => {
      try {
        checkId('ticket_id', call.request.ticketId);
        checkId('match_id', call.request.matchId);
        if (!coordinator.respondToMatch) throw new MatchmakingError('FAILED_PRECONDITION', 'RespondToMatch: this node does not run ready checks (they run on an embedded coordinator)');
        const complete = coordinator.respondToMatch(call.request.ticketId, call.request.matchId, call.request.accept, principalOf(call.metadata));
        callback(null, { matchComplete: complete });
      } catch (error) {
        callback(toServiceError(refuse(error) ?? error));
      }
    });
  };

  const stats = (
    call: ServerUnaryCall<QueryStatsRequest, QueryStatsResponse>,
    callback: sendUnaryData<QueryStatsResponse>,
  ): void => {
    try {
      const r = call.request;
      if (r.predicates.length > LIMITS.maxAttributes) {
        throw new MatchmakingError('INVALID_ARGUMENT', `predicates: at most ${LIMITS.maxAttributes}`);
      }
      const query: StatsQuery = {
        factory: r.factory,
        template: r.template,
        partition: decodeAttributes('partition_attributes', r.partitionAttributes),
        predicates: r.predicates.map((p, i) => (checkKey(`predicates[${i}].key`, p.key), [p.key, valueKey(decodeValue(`predicates[${i}].value`, p.value))] as const)),
        mode:
          r.mode === PredicateMode.PREDICATE_MODE_MATCH_ANY
            ? 'any'
            : r.mode === PredicateMode.PREDICATE_MODE_MATCH_NONE
              ? 'none'
              : 'all',
      };
      if (options.clusterStats) {
        options.clusterStats(query, options.now()).then(
          (answer) => callback(null, statsResponse(answer)),
          (error: unknown) => callback(toServiceError(refuse(error) ?? error)),
        );
        return;
      }
      const answer = view.queryStats(query, options.now());
      callback(null, statsResponse(answer));
    } catch (error) {
      callback(toServiceError(refuse(error) ?? error));
    }
  };

  return { findGame, findGames, cancelFind, respondToMatch, queryStats: stats };
}

function statsResponse(answer: StatsAnswer): QueryStatsResponse {
  return {
    factories: answer.factories,
    games: BigInt(answer.games),
    openGames: BigInt(answer.openGames),
    players: BigInt(answer.players),
    openSlots: BigInt(answer.openSlots),
    minDurationMs: BigInt(Math.round(answer.minDurationMs)),
    maxDurationMs: BigInt(Math.round(answer.maxDurationMs)),
    averageDurationMs: BigInt(Math.round(answer.averageDurationMs)),
    openGamesByOpenSlots: answer.openGamesByOpenSlots.map((n) => BigInt(n)),
    waitingTickets: BigInt(answer.waitingTickets),
    competitive: answer.competitive && {
      gamesFormed: BigInt(answer.competitive.gamesFormed),
      meanGapSigma: answer.competitive.meanGapSigma,
      p99GapSigma: answer.competitive.p99GapSigma,
      scoreMean: answer.competitive.scoreMean,
      scoreStdDev: answer.competitive.scoreStdDev,
    },
    backfill: answer.backfill && {
      openRequests: BigInt(answer.backfill.openRequests),
      openSeats: BigInt(answer.backfill.openSeats),
      filled: BigInt(answer.backfill.filled),
    },
  };
}
