import { randomId } from './random-ids.js';
import { LocalDelivery, PlayerClaims } from '../cluster/in-process/index.js';
import type { OrderDelivery, PlayerIndex } from '../cluster/ports.js';
import type { SliceSolver } from '../competitive/index.js';
import type { CoordinatorConfig } from '../config/config.js';
import { CoordinatorCore } from '../coordinator/coordinator-core.js';
import { EventHub } from '../coordinator/edges/events.js';
import type { Effect } from '../coordinator/effects.js';
import type { BackfillRecord, BackfillStore } from '../coordinator/backfill/backfill-record.js';
import type { Log, TicketRecord, TicketStore, Timers } from '../coordinator/ports.js';
import { ladderStanding, ratedLadders } from '../coordinator/results/game-results.js';
import { InMemoryRatingStore } from '../ratings/index.js';
import type { RatingStore } from '../ratings/rating-store.js';
import { CoreHost } from './core-host.js';
import type { MatchFunctionPort } from '../coordinator/match-functions/match-function-port.js';
import { GrpcMatchFunctions } from '../transport/grpc/match-function-client.js';

/**
 * Pools at least this large are solved on the worker threads when there are some: a 1v1 batch
 * this size takes ~10 ms in process (longer for teams, which hill-climb), about what encoding it
 * and posting it costs, so smaller batches are solved in the step that forms them.
 */
export const WORKER_BATCH_MIN_TICKETS = 2048;

/**
 * What a process gives every core it builds: the clock and timers, the log, ids and randomness,
 * the rating store, the worker threads, and the event hub that metrics and the operator page
 * subscribe to. Built once per process (`coreEnvironment`), so the embedded core and a cluster
 * node's matcher core share all of it and cannot drift apart.
 */
export interface CoreEnvironment {
  readonly now: () => number;
  readonly timers: Timers;
  readonly log: Log;
  readonly newId: () => string;
  readonly random: () => number;
  readonly ratings: RatingStore;
  readonly workers: SliceSolver | undefined;
  readonly events: EventHub;
  /** Factories' match functions (gRPC by default, clients made on first use). */
  readonly matchFunctions: MatchFunctionPort;
}

/** Where one core runs: what differs between the embedded process and a cluster's matcher owner. */
export interface CorePlace {
  /** Waiting tickets kept across restarts (LMDB; a Redis hash for a cluster's owner). */
  readonly store?: TicketStore;
  /** What the store held: those tickets' clients get their places back. */
  readonly restored?: readonly TicketRecord[];
  /** Open backfill requests kept across restarts (LMDB in the embedded process), and what it held. */
  readonly backfills?: BackfillStore;
  readonly restoredBackfills?: readonly BackfillRecord[];
  /** Orders to game servers (in process: straight to each server's stream). */
  readonly orders?: OrderDelivery;
  /** One live ticket per player (in process: a map). */
  readonly players?: PlayerIndex;
  /** Also store tickets riding a creation in flight (see GameCreations). */
  readonly storeInFlight?: boolean;
  /** ...as its order is sent, not once it is overdue (a cluster's matcher owner; see CoordinatorCore's options). */
  readonly storeInFlightAtOnce?: boolean;
  /** Called once each step's effects are applied (a cluster owner commits the step's writes then). */
  readonly afterStep?: () => void;
  /** For this long after the start, finds for a factory no server serves yet wait for one (a new owner's servers are reconnecting). */
  readonly awaitServersMs?: number;
  /** Before every id this core makes: a shard's owner tags its creations with its shard (src/sharding/creation-ids.ts). */
  readonly idPrefix?: string;
  /** The factories this core runs (a shard's); absent: every factory its servers can host. */
  readonly serves?: (factory: string) => boolean;
  /** A cluster shard's owner: orders wait for the step's commit too, and a failed commit drops what waited (HostParts.fenced). */
  readonly fenced?: boolean;
  /** Sees every effect as it is made (HostParts.seen). */
  readonly seen?: (effect: Effect) => void;
}

/** Fills in what a caller (a test) leaves out: random ids, Math.random, ratings in memory, no workers, a new hub. */
export function coreEnvironment(
  config: CoordinatorConfig,
  partial: Pick<CoreEnvironment, 'now' | 'timers' | 'log'> & Partial<CoreEnvironment>,
): CoreEnvironment {
  return {
    now: partial.now,
    timers: partial.timers,
    log: partial.log,
    newId: partial.newId ?? randomId,
    random: partial.random ?? Math.random,
    ratings: partial.ratings ?? new InMemoryRatingStore(ladderStanding(ratedLadders(config.ladders))),
    workers: partial.workers,
    events: partial.events ?? new EventHub(partial.log),
    matchFunctions: partial.matchFunctions ?? new GrpcMatchFunctions(),
  };
}

/**
 * The one builder of the coordinator core, used by the embedded process and by a cluster node
 * that takes the matcher alike: the pure core with its reads (ratings) and options, and the host
 * that applies its effects to this place's store, orders and player claims.
 */
export function buildCore(config: CoordinatorConfig, environment: CoreEnvironment, place: CorePlace = {}): CoreHost {
  const core = new CoordinatorCore(
    config,
    {
      newId: place.idPrefix === undefined ? environment.newId : prefixed(place.idPrefix, environment.newId),
      random: environment.random,
      ratings: environment.ratings,
      solving: { offloadAtTickets: environment.workers ? WORKER_BATCH_MIN_TICKETS : undefined },
      storeInFlight: place.storeInFlight,
      storeInFlightAtOnce: place.storeInFlightAtOnce,
      awaitServersUntil: place.awaitServersMs === undefined ? undefined : environment.now() + place.awaitServersMs,
      serves: place.serves,
      restoredBackfills: place.restoredBackfills,
    },
    place.restored,
    environment.now(),
  );
  return new CoreHost(core, {
    now: environment.now,
    timers: environment.timers,
    log: environment.log,
    players: place.players ?? new PlayerClaims(),
    orders: place.orders ?? new LocalDelivery(),
    store: place.store,
    backfills: place.backfills,
    ratings: environment.ratings,
    workers: environment.workers,
    events: environment.events,
    matchFunctions: environment.matchFunctions,
    afterStep: place.afterStep,
    fenced: place.fenced,
    seen: place.seen,
  });
}

function prefixed(prefix: string, newId: () => string): () => string {
  return () => prefix + newId();
}
