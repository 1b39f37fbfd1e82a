import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeSet, ValueKey } from '../../src/attributes/attribute-value.js';
import { CooperativeMatcher } from '../../src/cooperative/index.js';
import { openSlotsOf, ReferenceMatcher, type ModelGame } from './reference-model.js';

/**
 * Random sequences of every operation, applied to the matcher and to a brute-force model
 * (reference-model.ts). After each step every index must equal a recomputation from the list
 * of games, and every answer (reserve, expiry, removal, stats) must equal the model's.
 */
const MAX_PLAYERS = 3;
const RESERVATION_MS = 5;
const KEYS = ['act', 'quest', 'zone'] as const;
const GAME_IDS = ['g0', 'g1', 'g2', 'g3', 'g4'];
const PLAYERS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
const VALUES: ValueKey[] = ['i:1', 'i:2', 's:1'];

const attributesArb = fc
  .record({ act: fc.option(fc.constantFrom(...VALUES)), quest: fc.option(fc.constantFrom(...VALUES)), zone: fc.option(fc.constantFrom(...VALUES)) })
  .map((r): AttributeSet => new Map(Object.entries(r).filter((e): e is [string, ValueKey] => e[1] !== null)));
const gameIdArb = fc.constantFrom(...GAME_IDS);
const playerArb = fc.constantFrom(...PLAYERS);
const partyArb = fc.uniqueArray(playerArb, { minLength: 1, maxLength: MAX_PLAYERS });

const operationArb = fc.oneof(
  fc.record({
    t: fc.constant('add' as const),
    gameId: gameIdArb,
    attributes: attributesArb,
    players: fc.uniqueArray(playerArb, { maxLength: MAX_PLAYERS + 1 }),
    open: fc.boolean(),
    startedAt: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({ t: fc.constant('reserve' as const), query: attributesArb, party: partyArb }),
  fc.record({ t: fc.constant('reserveIn' as const), gameId: gameIdArb, party: partyArb }),
  fc.record({ t: fc.constant('join' as const), gameId: gameIdArb, player: playerArb }),
  fc.record({ t: fc.constant('leave' as const), gameId: gameIdArb, player: playerArb }),
  fc.record({ t: fc.constant('attributes' as const), gameId: gameIdArb, attributes: attributesArb }),
  fc.record({ t: fc.constant('open' as const), gameId: gameIdArb, open: fc.boolean() }),
  fc.record({ t: fc.constant('remove' as const), gameId: gameIdArb }),
  fc.record({ t: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('expire' as const), advance: fc.integer({ min: 0, max: 4 }) }),
);
type Operation = typeof operationArb extends fc.Arbitrary<infer T> ? T : never;

const STATS_PREDICATES: (readonly (readonly [string, ValueKey])[])[] = [
  [],
  [['act', 'i:1']],
  [['act', 'i:1'], ['quest', 'i:2']],
  [['act', 'i:1'], ['act', 'i:2']],
  [['zone', 's:1'], ['quest', 'i:1'], ['act', 'i:2']],
];

describe('cooperative matcher against a brute-force model', () => {
  for (const order of ['fill', 'spread'] as const) {
    it(`keeps every index and answer equal to a linear recomputation (${order})`, () => {
      fc.assert(
        fc.property(fc.array(operationArb, { minLength: 5, maxLength: 60, size: 'max' }), (operations) => {
          const matcher = new CooperativeMatcher({ maxPlayers: MAX_PLAYERS, order, matchableKeys: KEYS, reservationMs: RESERVATION_MS });
          const model = new ReferenceMatcher(MAX_PLAYERS, order, RESERVATION_MS);
          let now = 0;
          const tokens: string[] = [];
          operations.forEach((operation, step) => {
            now = apply(operation, step);
            checkInvariants(matcher, model, now);
          });

          function apply(op: Operation, step: number): number {
            const token = `t${step}`;
            const known = 'gameId' in op && model.games.has(op.gameId);
            switch (op.t) {
              case 'add': {
                const snapshot = { gameId: op.gameId, attributes: op.attributes, playerIds: op.players, open: op.open, startedAt: op.startedAt };
                matcher.addGame(snapshot);
                model.addGame(snapshot);
                break;
              }
              case 'reserve':
                tokens.push(token);
                const found = matcher.reserve(op.query, op.party, token, now);
                expect(found).toEqual(model.reserve(op.query, op.party, token, now));
                if (found !== undefined) expectWithinCapacity(matcher, found.gameId);
                break;
              case 'remove':
                expect(sortReservations(matcher.removeGame(op.gameId))).toEqual(sortReservations(model.removeGame(op.gameId)));
                break;
              case 'release': {
                const pick = tokens[op.pick % Math.max(1, tokens.length)] ?? 'none';
                matcher.releaseReservation(pick);
                model.release(pick);
                break;
              }
              case 'expire':
                now += op.advance;
                expect(matcher.expireReservations(now)).toEqual(model.expire(now));
                break;
              default:
                if (!known) {
                  expect(() => applyToGame(op, token)).toThrow(/unknown game/);
                  break;
                }
                applyToGame(op, token);
            }
            return now;
          }

          function applyToGame(op: Operation, token: string): void {
            switch (op.t) {
              case 'reserveIn':
                tokens.push(token);
                const placed = matcher.reserveInGame(op.gameId, op.party, token, now);
                expect(placed).toBe(model.reserveInGame(op.gameId, op.party, token, now));
                if (placed) expectWithinCapacity(matcher, op.gameId);
                break;
              case 'join':
                matcher.playerJoined(op.gameId, op.player, now);
                if (model.games.has(op.gameId)) model.join(op.gameId, op.player);
                break;
              case 'leave':
                matcher.playerLeft(op.gameId, op.player, now);
                if (model.games.has(op.gameId)) model.leave(op.gameId, op.player);
                break;
              case 'attributes':
                matcher.setAttributes(op.gameId, op.attributes);
                if (model.games.has(op.gameId)) model.games.get(op.gameId)!.attributes = new Map(op.attributes);
                break;
              case 'open':
                matcher.setOpen(op.gameId, op.open);
                if (model.games.has(op.gameId)) model.games.get(op.gameId)!.open = op.open;
                break;
              default:
                throw new Error(`not a game operation: ${op.t}`);
            }
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});

/** A game just promised seats holds at most maxPlayers players plus promised seats. */
function expectWithinCapacity(matcher: CooperativeMatcher, gameId: string): void {
  const game = matcher.game(gameId)!;
  expect(game.playerIds.length + game.reservedPlayerIds.length).toBeLessThanOrEqual(MAX_PLAYERS);
}

function checkInvariants(matcher: CooperativeMatcher, model: ReferenceMatcher, now: number): void {
  expect(matcher.size).toBe(model.games.size);
  for (const game of model.games.values()) {
    expect(matcher.game(game.gameId)).toEqual({
      gameId: game.gameId,
      attributes: game.attributes,
      playerIds: [...game.players],
      reservedPlayerIds: [...game.seats.keys()],
      open: game.open,
      openSlots: openSlotsOf(game, MAX_PLAYERS),
      startedAt: game.startedAt,
    });
  }
  expect(matcher.reservationCount).toBe(model.reservations.size);
  for (const r of model.reservations.values()) {
    expect(matcher.reservation(r.token)).toEqual({ token: r.token, gameId: r.gameId, playerIds: [...r.pending], expiresAt: r.expiresAt });
  }
  expect(matcher.nextReservationExpiry()).toBe(model.nextExpiry());

  const { openGames, attributes } = matcher.indexContents();
  expect(normalize(openGames)).toEqual(normalize(expectedOpenGameIndex(matcher, model)));
  expect(normalize(attributes)).toEqual(normalize(expectedAttributeIndex(model)));

  for (const predicates of STATS_PREDICATES) {
    for (const mode of ['all', 'any', 'none'] as const) {
      const { averageDurationMs, ...actual } = matcher.stats(predicates, mode, now);
      const { averageDurationMs: expectedAverage, ...expected } = model.stats(predicates, mode, now);
      expect(actual).toEqual(expected);
      expect(averageDurationMs).toBeCloseTo(expectedAverage, 9);
    }
  }
}

/** Every open game with room, under every subset of its attributes, newest first per bucket. */
function expectedOpenGameIndex(matcher: CooperativeMatcher, model: ReferenceMatcher): Map<string, Map<number, string[]>> {
  const index = new Map<string, Map<number, ModelGame[]>>();
  for (const game of model.games.values()) {
    const slots = openSlotsOf(game, MAX_PLAYERS);
    if (!game.open || slots === 0) continue;
    const entries = [...game.attributes];
    for (let mask = 0; mask < 1 << entries.length; mask++) {
      const subset = new Map(entries.filter((_, i) => (mask >> i) & 1));
      const key = matcher.subsetKeyOf(subset);
      const bySlots = index.get(key) ?? new Map<number, ModelGame[]>();
      index.set(key, bySlots);
      bySlots.set(slots, [...(bySlots.get(slots) ?? []), game]);
    }
  }
  const newestFirst = (a: ModelGame, b: ModelGame): number => b.startedAt - a.startedAt || (a.gameId < b.gameId ? -1 : 1);
  return new Map(
    [...index].map(([key, bySlots]) => [key, new Map([...bySlots].map(([s, games]) => [s, games.sort(newestFirst).map((g) => g.gameId)]))]),
  );
}

function expectedAttributeIndex(model: ReferenceMatcher): Map<string, Map<ValueKey, string[]>> {
  const index = new Map<string, Map<ValueKey, string[]>>();
  for (const game of model.games.values()) {
    for (const [key, value] of game.attributes) {
      const byValue = index.get(key) ?? new Map<ValueKey, string[]>();
      index.set(key, byValue);
      byValue.set(value, [...(byValue.get(value) ?? []), game.gameId].sort());
    }
  }
  return index;
}

/** Nested maps as sorted entry arrays, so equality does not depend on insertion order. */
function normalize(value: unknown): unknown {
  if (value instanceof Map) {
    return [...value].map(([k, v]) => [k, normalize(v)] as const).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  }
  return value;
}

function sortReservations<T extends { reservations: readonly { token: string }[] }>(removed: T | undefined): T | undefined {
  return removed && { ...removed, reservations: [...removed.reservations].sort((a, b) => (a.token < b.token ? -1 : 1)) };
}
