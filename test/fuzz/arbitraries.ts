import fc from 'fast-check';
import type { AttributeValue } from '../../src/generated/gamefactory/v1/attributes.js';
import { ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { FindGamesRequest, type CancelFindRequest, type FindGameRequest, type QueryStatsRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';

/**
 * fast-check arbitraries for every RPC's request and for game-server link sequences (issue 14):
 * random values, valid requests with one field mutated, oversize and deeply repeated fields,
 * out-of-order link messages. Ids come from small pools so cases collide with each other and
 * with real state, which is where the bugs are. Names in RESERVED are the bystanders' and never
 * generated, so the runner can check they were not disturbed.
 */
export const RESERVED = new Set(['keeper', 'waiter', 'keeper-host', 'fuzz-host', 'duel']);

const notReserved = (s: string) => !RESERVED.has(s);
const weirdString = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../etc', '%s%n', '🎮', 'a'.repeat(129), 'x'.repeat(5000)),
);
const idPool = (prefix: string, n: number) => fc.integer({ min: 1, max: n }).map((i) => `${prefix}${i}`);
const id = (prefix: string, n: number) => fc.oneof({ weight: 4, arbitrary: idPool(prefix, n) }, { weight: 1, arbitrary: weirdString.filter(notReserved) });

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const uint32 = fc.oneof(fc.nat(100), fc.constant(0xffffffff), fc.nat());
export const attributeValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  fc.record({ kind: fc.record({ $case: fc.constant('stringValue' as const), value: fc.oneof(fc.constantFrom('hard', 'normal', 'v201', 'v202', '1', '2'), weirdString) }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('intValue' as const), value: fc.oneof(fc.constantFrom(1n, 2n, 0n), int64) }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('doubleValue' as const), value: fc.double() }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('boolValue' as const), value: fc.boolean() }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('bytesValue' as const), value: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) }) }),
  fc.constant({}),
);
const key = fc.oneof(fc.constantFrom('difficulty', 'hardcore', 'version', 'act', 'quest', 'color'), weirdString);
const attributes = (max: number) => fc.dictionary(key, attributeValue, { maxKeys: max });

const s = (value: string): AttributeValue => ({ kind: { $case: 'stringValue', value } });
const b = (value: boolean): AttributeValue => ({ kind: { $case: 'boolValue', value } });

/** A request the coordinator in the fuzz config can serve (diablo, v201, hosted by fuzz-host). */
const validFind: fc.Arbitrary<FindGameRequest> = fc
  .record({ ticketId: idPool('t', 400), players: fc.uniqueArray(idPool('p', 300), { minLength: 1, maxLength: 4 }), act: fc.constantFrom('1', '2', '3') })
  .map(({ ticketId, players, act }) => ({
    ticketId,
    template: 'diablo',
    party: players.map((playerId) => ({ playerId })),
    partitionAttributes: { difficulty: s('hard'), hardcore: b(false), version: s('v201') },
    matchableAttributes: { act: s(act) },
    latenciesMs: {},
    preferredMaps: [],
    vetoedMaps: [],
  }));

const randomFind: fc.Arbitrary<FindGameRequest> = fc.record({
  ticketId: id('t', 400),
  template: fc.oneof(fc.constant('diablo'), fc.constant(''), weirdString.filter(notReserved)),
  party: fc.array(fc.record({ playerId: id('p', 300), score: fc.option(fc.double(), { nil: undefined }) }), { maxLength: 20 }),
  partitionAttributes: attributes(20),
  matchableAttributes: attributes(20),
  latenciesMs: fc.dictionary(weirdString, uint32, { maxKeys: 40 }),
  preferredMaps: fc.array(weirdString, { maxLength: 40 }),
  vetoedMaps: fc.array(weirdString, { maxLength: 40 }),
});

/** A valid request with one field replaced by a random one. */
const mutatedFind: fc.Arbitrary<FindGameRequest> = fc
  .tuple(validFind, randomFind, fc.constantFrom<(keyof FindGameRequest)[]>('ticketId', 'template', 'party', 'partitionAttributes', 'matchableAttributes', 'latenciesMs', 'preferredMaps', 'vetoedMaps'))
  .map(([valid, random, field]) => ({ ...valid, [field]: random[field] }));

/** Deeply repeated fields: far past every input limit, still under the message size limit. */
const oversizeFind: fc.Arbitrary<FindGameRequest> = fc.tuple(validFind, fc.integer({ min: 17, max: 5000 })).map(([valid, n]) => ({
  ...valid,
  party: Array.from({ length: n }, (_, i) => ({ playerId: `big${i}` })),
  preferredMaps: Array.from({ length: n }, (_, i) => `m${i}`),
}));

export const findGameRequest: fc.Arbitrary<FindGameRequest> = fc.oneof(
  { weight: 3, arbitrary: validFind },
  { weight: 3, arbitrary: mutatedFind },
  { weight: 3, arbitrary: randomFind },
  { weight: 1, arbitrary: oversizeFind },
);

export const cancelFindRequest: fc.Arbitrary<CancelFindRequest> = fc.record({ ticketId: id('t', 400) });

export const findGamesRequest: fc.Arbitrary<FindGamesRequest> = fc.oneof(
  fc.record({ request: fc.record({ $case: fc.constant('find' as const), value: findGameRequest }) }),
  fc.record({ request: fc.record({ $case: fc.constant('cancel' as const), value: cancelFindRequest }) }),
  fc.constant({}),
  // Batched finds and cancels in one message, sometimes past the batch limit.
  fc.record({
    request: fc.record({
      $case: fc.constant('batch' as const),
      value: fc.record({
        finds: fc.oneof({ weight: 5, arbitrary: fc.array(findGameRequest, { maxLength: 16 }) }, { weight: 1, arbitrary: fc.array(validFind, { minLength: 1025, maxLength: 1030 }) }),
        cancels: fc.array(cancelFindRequest, { maxLength: 8 }),
      }),
    }),
  }),
);

export const queryStatsRequest: fc.Arbitrary<QueryStatsRequest> = fc.record({
  factory: fc.oneof(fc.constant(''), fc.constant('diablo/difficulty=hard/hardcore=false/version=v201'), weirdString),
  template: fc.oneof(fc.constant(''), fc.constant('diablo'), weirdString),
  partitionAttributes: attributes(20),
  predicates: fc.array(fc.record({ key, value: fc.option(attributeValue, { nil: undefined }) }), { maxLength: 40 }),
  mode: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -5, max: 1000 })),
});

// ---------------------------------------------------------------- the game-server link

const gameId = fc.oneof(idPool('g', 6), fc.constantFrom('fuzz-host-g1', 'fuzz-host-g2', 'keeper-host-g1'), weirdString);
const capacity = fc.record({ maxGames: uint32, maxStartsPerSecond: fc.double() });

export const hello = fc.record({
  serverId: id('fz-', 6),
  endpoint: fc.oneof(fc.constant('fz.example:7777'), weirdString),
  attributes: fc.oneof(fc.constant({ version: s('v201') }), attributes(20)),
  templates: fc.oneof(fc.constant([] as string[]), fc.array(fc.oneof(fc.constant('diablo'), weirdString), { maxLength: 20 })),
  capacity: fc.option(capacity, { nil: undefined }),
  runningGames: fc.array(
    fc.record({
      gameId,
      factory: fc.oneof(fc.constant('diablo/difficulty=hard/hardcore=false/version=v201'), weirdString),
      matchableAttributes: attributes(8),
      playerIds: fc.array(id('p', 300), { maxLength: 20 }),
      open: fc.boolean(),
      startedAtUnixMs: int64,
      requestId: fc.oneof(fc.constant(''), weirdString),
    }),
    { maxLength: 6 },
  ),
  pendingCreations: fc.array(fc.oneof(id('r', 6), weirdString), { maxLength: 4 }),
});

const event = <C extends string, V>(c: C, value: fc.Arbitrary<V>) => fc.record({ event: fc.record({ $case: fc.constant(c), value }) });

export const serverMessage: fc.Arbitrary<ServerMessage> = fc.oneof(
  event('hello', hello),
  event('gameCreated', fc.record({ requestId: id('r', 6), gameId })),
  event('gameCreationFailed', fc.record({ requestId: id('r', 6), reason: weirdString })),
  event('playerJoined', fc.record({ gameId, playerId: id('p', 300) })),
  event('playerLeft', fc.record({ gameId, playerId: id('p', 300) })),
  event('gameAttributesChanged', fc.record({ gameId, matchableAttributes: attributes(20) })),
  event('gameOpened', fc.record({ gameId })),
  event('gameClosed', fc.record({ gameId })),
  event('gameEnded', fc.record({ gameId })),
  event('capacityChanged', fc.record({ capacity: fc.option(capacity, { nil: undefined }) })),
  event('keepaliveAck', fc.record({ sequence: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) })),
  fc.constant({}),
);

/** Reports batched in one ServerBatch, nested batches and over-long ones included. */
const batchedReports: fc.Arbitrary<ServerMessage> = event(
  'batch',
  fc.record({ events: fc.oneof({ weight: 5, arbitrary: fc.array(serverMessage, { maxLength: 24 }) }, { weight: 1, arbitrary: fc.array(event('batch', fc.record({ events: fc.array(serverMessage, { maxLength: 3 }) })), { maxLength: 3 }) }) }),
);

/**
 * A stream's messages: usually a hello first then reports in any order (join before create, end
 * twice, results for games that are not this server's); sometimes no hello at all.
 */
export const linkSequence: fc.Arbitrary<ServerMessage[]> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(event('hello', hello), fc.array(serverMessage, { maxLength: 12 })).map(([h, rest]) => [h, ...rest]) },
  { weight: 2, arbitrary: fc.tuple(event('hello', hello), fc.array(batchedReports, { minLength: 1, maxLength: 4 })).map(([h, rest]) => [h, ...rest]) },
  { weight: 1, arbitrary: fc.array(serverMessage, { minLength: 1, maxLength: 6 }) },
  {
    weight: 2,
    arbitrary: fc.tuple(event('hello', hello), gameId, id('p', 300)).map(([h, g, p]) => [
      h,
      { event: { $case: 'playerJoined' as const, value: { gameId: g, playerId: p } } },
      { event: { $case: 'gameEnded' as const, value: { gameId: g } } },
      { event: { $case: 'gameEnded' as const, value: { gameId: g } } },
      { event: { $case: 'gameCreated' as const, value: { requestId: 'unknown', gameId: g } } },
    ]),
  },
);

// ---------------------------------------------------------------- cases

export const RAW_PATHS = [
  '/gamefactory.v1.Matchmaker/FindGame',
  '/gamefactory.v1.Matchmaker/CancelFind',
  '/gamefactory.v1.Matchmaker/QueryStats',
  '/gamefactory.v1.Matchmaker/FindGames',
  '/gamefactory.v1.GameServerLink/Connect',
] as const;

export type FuzzCase =
  | { kind: 'findGame'; request: FindGameRequest }
  | { kind: 'findGames'; requests: FindGamesRequest[] }
  | { kind: 'cancelFind'; request: CancelFindRequest }
  | { kind: 'queryStats'; request: QueryStatsRequest }
  | { kind: 'link'; messages: ServerMessage[] }
  | { kind: 'raw'; path: (typeof RAW_PATHS)[number]; bytes: Uint8Array }
  /** A peer that sends and never reads its replies (a raw HTTP/2 stream beside the others on one connection). */
  | { kind: 'deaf'; path: (typeof DEAF_PATHS)[number]; messages: Uint8Array[]; repeat: number };

export const DEAF_PATHS = ['/gamefactory.v1.Matchmaker/FindGames', '/gamefactory.v1.GameServerLink/Connect'] as const;

/** Encoded messages for a deaf peer: link sequences or FindGames requests, sent `repeat` times over. */
const deafCase = fc.oneof(
  linkSequence.map((messages) => ({ path: DEAF_PATHS[1], messages: messages.map((m) => ServerMessage.encode(m).finish()) })),
  fc.array(findGamesRequest, { minLength: 1, maxLength: 6 }).map((requests) => ({ path: DEAF_PATHS[0], messages: requests.map((r) => FindGamesRequest.encode(r).finish()) })),
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 4, arbitrary: findGameRequest.map((request) => ({ kind: 'findGame' as const, request })) },
  { weight: 2, arbitrary: fc.array(findGamesRequest, { maxLength: 12 }).map((requests) => ({ kind: 'findGames' as const, requests })) },
  { weight: 2, arbitrary: cancelFindRequest.map((request) => ({ kind: 'cancelFind' as const, request })) },
  { weight: 1, arbitrary: queryStatsRequest.map((request) => ({ kind: 'queryStats' as const, request })) },
  { weight: 3, arbitrary: linkSequence.map((messages) => ({ kind: 'link' as const, messages })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw' as const), path: fc.constantFrom(...RAW_PATHS), bytes: fc.uint8Array({ maxLength: 200 }) }) },
  { weight: 1, arbitrary: fc.tuple(deafCase, fc.integer({ min: 1, max: 200 })).map(([d, repeat]) => ({ kind: 'deaf' as const, ...d, repeat })) },
);
