import {
  valueFromKey,
  valueKey,
  type AttributeSet,
  type AttributeValue,
  type ValueKey,
} from '../../attributes/attribute-value.js';
import { LIMITS } from '../../attributes/limits.js';
import type {
  Assignment,
  FindRequest,
  Player,
  MatchQualityFigures,
  ServerCapacity,
  ServerEvent,
  ServerHello,
  ServerOrder,
} from '../../coordinator/messages.js';
import { invalidArgument } from '../../errors/index.js';
import type { Principal } from '../../security/tokens/principal.js';
import { decodeRequestBackfill, encodeBackfillStatus } from './backfill-codec.js';
import { decodeGameResult, encodeGameResultAck } from './game-result-codec.js';
import { KnownAttributeSets } from './known-attribute-sets.js';
import type { AttributeValue as WireValue } from '../../generated/gamefactory/v1/attributes.js';
import type {
  Capacity,
  CoordinatorMessage,
  Hello,
  ServerMessage,
} from '../../generated/gamefactory/v1/game_server_link.js';
import type { MatchQuality } from '../../generated/gamefactory/v1/match_quality.js';
import type { Assignment as WireAssignment, FindGameRequest } from '../../generated/gamefactory/v1/matchmaker.js';
import { playerTokens, seatToken } from '../../security/seat-tokens.js';

/**
 * Translation between the wire (ts-proto messages) and the core's domain types, with the shape
 * and size checks every input gets. Errors name the field as it is spelled in the .proto.
 */

export function decodeValue(field: string, wire: WireValue | undefined): AttributeValue {
  const kind = wire?.kind;
  switch (kind?.$case) {
    case 'stringValue':
      checkLength(field, Buffer.byteLength(kind.value), LIMITS.maxValueLength);
      return { kind: 'string', value: kind.value };
    case 'intValue':
      return { kind: 'int', value: kind.value };
    case 'doubleValue':
      if (!Number.isFinite(kind.value)) throw invalidArgument(field, 'double value must be finite');
      return { kind: 'double', value: kind.value };
    case 'boolValue':
      return { kind: 'bool', value: kind.value };
    case 'bytesValue':
      checkLength(field, kind.value.length, LIMITS.maxValueLength);
      return { kind: 'bytes', value: kind.value };
    default:
      throw invalidArgument(field, 'value is not set (give one of string, int, double, bool, bytes)');
  }
}

export function encodeValue(key: ValueKey): WireValue {
  const value = valueFromKey(key);
  switch (value.kind) {
    case 'string':
      return { kind: { $case: 'stringValue', value: value.value } };
    case 'int':
      return { kind: { $case: 'intValue', value: value.value } };
    case 'double':
      return { kind: { $case: 'doubleValue', value: value.value } };
    case 'bool':
      return { kind: { $case: 'boolValue', value: value.value } };
    case 'bytes':
      return { kind: { $case: 'bytesValue', value: Buffer.from(value.value) } };
  }
}

export function decodeAttributes(field: string, wire: Record<string, WireValue> | undefined): AttributeSet {
  if (wire === undefined) return NO_ATTRIBUTES;
  // A record the request decoder shares between requests (find-games-decoding.ts) is frozen: its set, once found, by identity.
  const shared = Object.isFrozen(wire);
  if (shared) {
    const set = setsOfSharedRecords.get(wire);
    if (set !== undefined) return set;
  }
  let set = knownSets.find(wire);
  if (set === undefined) {
    set = decodeAttributesInFull(field, wire);
    knownSets.remember(wire, set);
  }
  if (shared) setsOfSharedRecords.set(wire, set);
  return set;
}

/** The set each shared wire record decoded to (only records that decoded: a refused one throws before). */
const setsOfSharedRecords = new WeakMap<object, AttributeSet>();

function decodeAttributesInFull(field: string, wire: Record<string, WireValue>): AttributeSet {
  const entries = Object.entries(wire);
  if (entries.length === 0) return NO_ATTRIBUTES;
  if (entries.length > LIMITS.maxAttributes) {
    throw invalidArgument(field, `${entries.length} attributes; at most ${LIMITS.maxAttributes}`);
  }
  const keys: string[] = [];
  let signature = '';
  for (const [key, value] of entries) {
    const named = `${field}[${shownKey(key)}]`;
    checkKey(named, key);
    const k = valueKey(decodeValue(named, value));
    keys.push(k);
    signature += `${key.length}:${key}${k.length}:${k}`;
  }
  return internedSets.get(signature) ?? internSet(signature, entries, keys);
}

/**
 * Decoded attribute sets, shared by every request that sends the same ones in the same order:
 * waiting tickets keep their request, and a Map per ticket per set was a few hundred bytes of each
 * (most tickets of a factory send the same partition, and a few matchable values). Bounded: when
 * full it starts over, so a client sending endless distinct sets costs a Map each, as before.
 */
const internedSets = new Map<string, AttributeSet>();
const MAX_INTERNED_SETS = 4096;

function internSet(signature: string, entries: [string, WireValue][], keys: readonly string[]): AttributeSet {
  const set = new Map<string, ValueKey>();
  entries.forEach(([key], i) => set.set(key, keys[i]! as ValueKey));
  if (internedSets.size >= MAX_INTERNED_SETS) internedSets.clear();
  internedSets.set(signature, set);
  return set;
}

/** Template names, one string each however many tickets name them (bounded like the sets). */
const internedNames = new Map<string, string>();

function internName(name: string): string {
  const known = internedNames.get(name);
  if (known !== undefined) return known;
  if (internedNames.size >= MAX_INTERNED_SETS) internedNames.clear();
  internedNames.set(name, name);
  return name;
}

const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * One shared empty set (and latency map) for every request that leaves them out: a Map costs a
 * couple of hundred bytes, and retained tickets hold their request (perf/PROFILE.md, heap profile).
 */
const NO_ATTRIBUTES: AttributeSet = new Map();
const knownSets = new KnownAttributeSets(NO_ATTRIBUTES);
const NO_LATENCIES: ReadonlyMap<string, number> = new Map();

export function encodeAttributes(attributes: AttributeSet): Record<string, WireValue> {
  // Sets are shared (a factory's partition, the interned sets of requests) and never change: each
  // is turned into its wire record once, frozen, for every CreateGame that names it.
  let result = encodedSets.get(attributes);
  if (result === undefined) {
    const fresh: Record<string, WireValue> = {};
    for (const [key, value] of attributes) fresh[key] = encodeValue(value);
    result = Object.freeze(fresh);
    encodedSets.set(attributes, result);
  }
  return result;
}

const encodedSets = new WeakMap<AttributeSet, Readonly<Record<string, WireValue>>>();

/** A key as an error message names it: cut at the longest a key may be, so a refusal never echoes a huge one. */
function shownKey(key: string): string {
  return key.length <= LIMITS.maxKeyLength ? key : `${key.slice(0, LIMITS.maxKeyLength)}…`;
}

export function checkKey(field: string, key: string): void {
  if (key.length === 0) throw invalidArgument(field, 'key must not be empty');
  checkLength(field, key.length, LIMITS.maxKeyLength);
}

function checkLength(field: string, length: number, max: number): void {
  if (length > max) throw invalidArgument(field, `${length} bytes; at most ${max}`);
}

export function checkId(field: string, id: string): string {
  if (id.length === 0) throw invalidArgument(field, 'must not be empty');
  if (id.length > LIMITS.maxIdLength) throw invalidArgument(field, `${id.length} characters; at most ${LIMITS.maxIdLength}`);
  return id;
}

function checkList(field: string, list: readonly string[]): readonly string[] {
  if (list.length > LIMITS.maxListLength) throw invalidArgument(field, `${list.length} entries; at most ${LIMITS.maxListLength}`);
  list.forEach((item, i) => checkLength(`${field}[${i}]`, item.length, LIMITS.maxKeyLength));
  return list;
}

/** `caller` is who asks (the ticket's owner), when the transport knows it. */
export function decodeFindRequest(wire: FindGameRequest, caller?: Principal): FindRequest {
  checkId('ticket_id', wire.ticketId);
  if (wire.party.length === 0) throw invalidArgument('party', 'must have at least one player');
  if (wire.party.length > LIMITS.maxPartySize) {
    throw invalidArgument('party', `${wire.party.length} players; at most ${LIMITS.maxPartySize}`);
  }
  // Field names are built only for an error: a ticket is decoded thousands of times a second.
  const party = new Array<Player>(wire.party.length);
  for (let i = 0; i < wire.party.length; i++) {
    const p = wire.party[i]!;
    if (p.playerId.length === 0 || p.playerId.length > LIMITS.maxIdLength) checkId(`party[${i}].player_id`, p.playerId);
    // Parties are at most maxPartySize: a pairwise check, no Map a request.
    for (let j = 0; j < i; j++) {
      if (party[j]!.playerId === p.playerId) throw invalidArgument(`party[${i}].player_id`, `"${p.playerId}" is also party[${j}]`);
    }
    if (p.score !== undefined && !Number.isFinite(p.score)) {
      throw invalidArgument(`party[${i}].score`, 'must be a finite number');
    }
    party[i] = { playerId: p.playerId, score: p.score };
  }
  const latencies = hasKeys(wire.latenciesMs) ? Object.entries(wire.latenciesMs) : NO_ENTRIES;
  if (latencies.length > 0) checkList('latencies_ms', latencies.map(([region]) => region));
  checkLength('template', wire.template.length, LIMITS.maxKeyLength);
  // Written out with every field present, so all requests share one hidden class (a waiting
  // ticket keeps its request); the template's bounds (playerLimits) are checked by its factory.
  return {
    ticketId: wire.ticketId,
    template: internName(wire.template),
    party,
    partition: decodeAttributes('partition_attributes', wire.partitionAttributes),
    matchable: decodeAttributes('matchable_attributes', wire.matchableAttributes),
    latenciesMs: latencies.length === 0 ? NO_LATENCIES : new Map(latencies),
    // Empty lists (nearly every request) are one shared frozen array; a ticket keeps its request.
    preferredMaps: wire.preferredMaps.length === 0 ? NO_NAMES : checkList('preferred_maps', wire.preferredMaps),
    vetoedMaps: wire.vetoedMaps.length === 0 ? NO_NAMES : checkList('vetoed_maps', wire.vetoedMaps),
    waitBudgetMs: wire.waitBudgetMs,
    maxLatencyMs: wire.maxLatencyMs,
    location: wire.location !== undefined ? decodeLocation(wire.location) : undefined,
    softAttributes: wire.softAttributes !== undefined && Object.keys(wire.softAttributes.values).length > 0 ? decodeSoftAttributes(wire.softAttributes.values) : undefined,
    caller,
  };
}

const NO_ENTRIES: readonly [string, number][] = Object.freeze([]) as readonly [string, number][];

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

/** Degrees on the globe; NaN and out-of-range values would poison every distance the locality prior computes. */
function decodeLocation(wire: { latitude: number; longitude: number }): { latitude: number; longitude: number } {
  if (!Number.isFinite(wire.latitude) || wire.latitude < -90 || wire.latitude > 90) throw invalidArgument('location.latitude', `${wire.latitude}: must be a number from -90 to 90`);
  if (!Number.isFinite(wire.longitude) || wire.longitude < -180 || wire.longitude > 180) throw invalidArgument('location.longitude', `${wire.longitude}: must be a number from -180 to 180`);
  return { latitude: wire.latitude, longitude: wire.longitude };
}

function decodeSoftAttributes(values: Record<string, string>): ReadonlyMap<string, string> {
  const entries = Object.entries(values);
  if (entries.length > LIMITS.maxAttributes) throw invalidArgument('soft_attributes', `${entries.length} attributes; at most ${LIMITS.maxAttributes}`);
  for (const [key, value] of entries) {
    if (key.length === 0) throw invalidArgument('soft_attributes', 'a key must not be empty');
    checkLength(`soft_attributes["${key.slice(0, LIMITS.maxKeyLength)}"]`, key.length, LIMITS.maxKeyLength);
    checkLength(`soft_attributes["${key}"]`, value.length, LIMITS.maxValueLength);
  }
  return new Map(entries);
}

/** A game's predicted balance, as the wire carries it. */
function encodeQuality(q: MatchQualityFigures): MatchQuality {
  return { favouriteWinProbability: q.favouriteWinProbability, matchQuality: q.matchQuality, gapSigma: q.gapSigma };
}

export function encodeAssignment(a: Assignment): WireAssignment {
  const { reservationToken, seatTokens } = playerTokens(a);
  return {
    gameId: a.gameId,
    serverEndpoint: a.serverEndpoint,
    factory: a.factory,
    reservationToken,
    serverId: a.serverId,
    created: a.created,
    map: a.map,
    region: a.region,
    team: a.team,
    ...(a.quality && { quality: encodeQuality(a.quality) }),
    seatTokens,
  };
}

function decodeCapacity(field: string, wire: Capacity | undefined): ServerCapacity {
  const maxGames = wire?.maxGames ?? 0;
  const rate = wire?.maxStartsPerSecond ?? 0;
  if (maxGames > LIMITS.maxGamesPerServer) throw invalidArgument(`${field}.max_games`, `at most ${LIMITS.maxGamesPerServer}`);
  // A rate below 0.001/s makes the start bucket's next token 1e3/rate ms away: past 2^31-1 ms a timer fires at once (found by the fuzzer).
  if (!Number.isFinite(rate) || rate < 0 || (rate > 0 && rate < 0.001)) throw invalidArgument(`${field}.max_starts_per_second`, 'must be 0 (unlimited) or a finite number >= 0.001');
  return { maxGames, maxStartsPerSecond: rate };
}

export function decodeHello(wire: Hello, now: number): ServerHello {
  checkId('hello.server_id', wire.serverId);
  checkId('hello.endpoint', wire.endpoint);
  if (wire.runningGames.length > LIMITS.maxGamesPerServer) {
    throw invalidArgument('hello.running_games', `${wire.runningGames.length} games; at most ${LIMITS.maxGamesPerServer}`);
  }
  if (wire.pendingCreations.length > LIMITS.maxGamesPerServer) {
    throw invalidArgument('hello.pending_creations', `${wire.pendingCreations.length} orders; at most ${LIMITS.maxGamesPerServer}`);
  }
  wire.pendingCreations.forEach((id, i) => checkId(`hello.pending_creations[${i}]`, id));
  return {
    serverId: wire.serverId,
    endpoint: wire.endpoint,
    attributes: decodeAttributes('hello.attributes', wire.attributes),
    templates: checkList('hello.templates', wire.templates),
    capacity: decodeCapacity('hello.capacity', wire.capacity),
    runningGames: wire.runningGames.map((g, i) => {
      const field = `hello.running_games[${i}]`;
      checkId(`${field}.game_id`, g.gameId);
      if (g.playerIds.length > 1024) throw invalidArgument(`${field}.player_ids`, 'at most 1024 players');
      g.playerIds.forEach((p, j) => checkId(`${field}.player_ids[${j}]`, p));
      const startedAt = Number(g.startedAtUnixMs);
      if (g.requestId !== '') checkId(`${field}.request_id`, g.requestId);
      return {
        gameId: g.gameId,
        factory: g.factory,
        ...(g.requestId !== '' && { requestId: g.requestId }),
        matchable: decodeAttributes(`${field}.matchable_attributes`, g.matchableAttributes),
        playerIds: g.playerIds,
        open: g.open,
        // A start in the future is judged by the core (the game is rejected with a reason), not hidden here.
        startedAt: startedAt > 0 ? startedAt : now,
      };
    }),
    ...(wire.pendingCreations.length > 0 && { pendingCreations: wire.pendingCreations }),
  };
}

/** A server message after hello, in domain terms; `undefined` for keepalive acks. `serverId` is the stream's server. */
export function decodeServerEvent(message: ServerMessage, serverId = ''): ServerEvent | 'keepalive' | 'hello' | undefined {
  const event = message.event;
  switch (event?.$case) {
    case undefined:
      return undefined;
    case 'hello':
      return 'hello';
    case 'keepaliveAck':
      return 'keepalive';
    case 'gameCreated':
      return { kind: 'gameCreated', requestId: event.value.requestId, gameId: checkId('game_created.game_id', event.value.gameId) };
    case 'gameCreationFailed':
      return { kind: 'gameCreationFailed', requestId: event.value.requestId, reason: event.value.reason.slice(0, 1024) };
    case 'playerJoined':
      return { kind: 'playerJoined', gameId: event.value.gameId, playerId: checkId('player_joined.player_id', event.value.playerId) };
    case 'playerLeft':
      return { kind: 'playerLeft', gameId: event.value.gameId, playerId: event.value.playerId };
    case 'gameAttributesChanged':
      return {
        kind: 'gameAttributesChanged',
        gameId: event.value.gameId,
        matchable: decodeAttributes('game_attributes_changed.matchable_attributes', event.value.matchableAttributes),
      };
    case 'gameOpened':
      return { kind: 'gameOpened', gameId: event.value.gameId };
    case 'gameClosed':
      return { kind: 'gameClosed', gameId: event.value.gameId };
    case 'gameEnded':
      return { kind: 'gameEnded', gameId: event.value.gameId };
    case 'capacityChanged':
      return { kind: 'capacityChanged', capacity: decodeCapacity('capacity_changed.capacity', event.value.capacity) };
    case 'gameResult':
      return { kind: 'gameResult', result: decodeGameResult(event.value, serverId) };
    case 'requestBackfill':
      return decodeRequestBackfill(event.value);
    case 'cancelBackfill':
      return { kind: 'cancelBackfill', gameId: event.value.gameId, backfillId: checkId('cancel_backfill.backfill_id', event.value.backfillId) };
  }
}

export function encodeOrder(order: ServerOrder): CoordinatorMessage {
  switch (order.kind) {
    case 'createGame':
      return {
        order: {
          $case: 'createGame',
          value: {
            requestId: order.requestId,
            factory: order.factory,
            partitionAttributes: encodeAttributes(order.partition),
            matchableAttributes: encodeAttributes(order.matchable),
            seats: order.playerIds.map((playerId) => ({ playerId, reservationToken: seatToken(order.reservationToken, playerId) })),
            reservationToken: '',
            confirmWithinMs: order.confirmWithinMs,
            map: order.map,
            region: order.region,
            seatTeams: [...order.seatTeams],
            ...(order.quality && { quality: encodeQuality(order.quality) }),
          },
        },
      };
    case 'reserveSeats':
      return {
        order: {
          $case: 'reserveSeats',
          value: {
            gameId: order.gameId,
            seats: order.playerIds.map((playerId) => ({ playerId, reservationToken: seatToken(order.reservationToken, playerId) })),
            reservationToken: '',
            expiresInMs: order.expiresInMs,
            backfillId: order.backfill?.backfillId ?? '',
            seatTeams: order.backfill ? [...order.backfill.seatTeams] : [],
          },
        },
      };
    case 'backfillStatus':
      return { order: { $case: 'backfillStatus', value: encodeBackfillStatus(order) } };
    case 'rejected':
      return { order: { $case: 'rejected', value: { reason: order.reason } } };
    case 'gameResultAck':
      return encodeGameResultAck(order.gameId, order.applied, order.reason);
  }
}
