import { defineCase } from '../case.js';
import type { AttributeSet } from '../../../src/attributes/attribute-value.js';
import { CooperativeMatcher } from '../../../src/cooperative/index.js';

/**
 * Cooperative budgets (DESIGN.md, "Complexity budgets"; issue 3): finding a game is O(1) or
 * O(log n) in open games, never a scan, whether the query is selective or matches most games;
 * joins, leaves, attribute changes and open/close are O(1) per indexed attribute subset (times
 * a heap's log n). Every run undoes its change, so the factory stays at n open games.
 */

const MAX_PLAYERS = 4;
const RESERVATION_MS = 30_000;

/** A deterministic scatter over 0..n-1 (multiplicative hashing), so runs touch all of the structure. */
const pick = (i: number, n: number): number => (Math.imul(i + 1, 2654435761) >>> 0) % n;

interface Factory {
  readonly n: number;
  readonly matcher: CooperativeMatcher;
  readonly gameIds: string[];
  /** Queries matching 4 games each (one zone), whatever n. */
  readonly selective: AttributeSet[];
  /** Queries matching half of all games (one act). */
  readonly broad: AttributeSet[];
}

/**
 * Game k of n: act (2 values: each matches n/2 games), quest (16 values, each within one act)
 * and zone (n/4 values, each within one quest: 4 games each), like places nested in a world.
 */
function attributesOf(k: number, n: number): AttributeSet {
  return new Map([
    ['act', `i:${k % 2}`],
    ['quest', `s:q${k % 16}`],
    ['zone', `s:z${k % Math.max(16, n >> 2)}`],
  ]);
}

/**
 * n open games of 4 seats with 0–2 players (2–4 open slots). Start times are scattered so the
 * newest-first buckets see out-of-order inserts.
 */
function factoryOf(n: number): Factory {
  const matcher = new CooperativeMatcher({
    maxPlayers: MAX_PLAYERS,
    matchableKeys: ['act', 'quest', 'zone'],
    reservationMs: RESERVATION_MS,
  });
  const gameIds: string[] = [];
  for (let k = 0; k < n; k++) {
    const gameId = `game-${k}`;
    const playerIds = Array.from({ length: k % 3 }, (_, p) => `${gameId}/player-${p}`);
    matcher.addGame({ gameId, attributes: attributesOf(k, n), playerIds, open: true, startedAt: pick(k, n) });
    gameIds.push(gameId);
  }
  const selective = Array.from({ length: Math.max(16, n >> 2) }, (_, z): AttributeSet => new Map([['zone', `s:z${z}`]]));
  const broad = [0, 1].map((act): AttributeSet => new Map([['act', `i:${act}`]]));
  return { n, matcher, gameIds, selective, broad };
}

/**
 * Every case below leaves the factory as it found it, so they share one factory per size:
 * the runner builds all sizes of a case before timing it, and building 2^10..2^17 games for
 * each case again would cost seconds per case. The last case to use a size lets it go.
 */
const shared = new Map<number, { factory: Factory; uses: number }>();
let caseCount = 0;
function sharedFactory(n: number): Factory {
  const entry = shared.get(n) ?? { factory: factoryOf(n), uses: 0 };
  entry.uses++;
  if (entry.uses >= caseCount) shared.delete(n);
  else shared.set(n, entry);
  return entry.factory;
}

const sizes = { minLog2: 10, maxLog2: 17 } as const;

/**
 * Cases that change one game take it from a fixed set of HOT games spread over the factory, not a
 * random one of all n (as placement.case.ts does for its re-key cases, which explains it): with a
 * random game they measure the memory hierarchy, a game's records missing every cache level once
 * 2^17 games no longer fit L3. Per call they grew ~11-15x over 2^10..2^17 where log n predicts
 * 1.7x, per-doubling slopes up to 1.1, and "a player joins and leaves" once fitted O(n) in CI, the
 * same before and after the typed-array index. Linear work per call is still caught: it touches
 * all n games whatever is hot.
 */
const HOT = 64;

/** The factory of size n, with HOT distinct games spread over it (pick is a bijection modulo a power of two). */
function withHotGames(n: number): Factory & { hot: string[] } {
  const factory = sharedFactory(n);
  return { ...factory, hot: Array.from({ length: Math.min(HOT, n) }, (_, j) => factory.gameIds[pick(j, n)]!) };
}

function findAndRelease(kind: 'selective' | 'broad', partySize: number) {
  const party = Array.from({ length: partySize }, (_, p) => `seeker-${p}`);
  return defineCase({
    name: `cooperative: find + release a game, ${kind} query, party of ${partySize}`,
    budget: 'O(log n)',
    ...sizes,
    setup: sharedFactory,
    run(factory, i) {
      const queries = factory[kind];
      const token = `ticket-${i}`;
      const found = factory.matcher.reserve(queries[pick(i, queries.length)]!, party, token, i);
      factory.matcher.releaseReservation(token);
      return found?.gameId;
    },
  });
}

const cases = [
  findAndRelease('selective', 1),
  findAndRelease('broad', 1),
  findAndRelease('broad', 2),
  defineCase({
    name: 'cooperative: a player joins and leaves an open game',
    budget: 'O(log n)',
    ...sizes,
    setup: withHotGames,
    run({ matcher, hot }, i) {
      const gameId = hot[i % hot.length]!;
      matcher.playerJoined(gameId, 'visitor', i);
      matcher.playerLeft(gameId, 'visitor', i);
      return matcher.openGameCount;
    },
  }),
  defineCase({
    name: 'cooperative: a game changes quest and back',
    budget: 'O(log n)',
    ...sizes,
    setup: sharedFactory,
    run({ n, matcher, gameIds }, i) {
      const k = pick(i, n);
      const gameId = gameIds[k]!;
      const original = attributesOf(k, n);
      matcher.setAttributes(gameId, new Map(original).set('quest', 's:elsewhere'));
      matcher.setAttributes(gameId, original);
      return matcher.openGameCount;
    },
  }),
  defineCase({
    name: 'cooperative: a game closes and reopens',
    budget: 'O(log n)',
    ...sizes,
    setup: withHotGames,
    run({ matcher, hot }, i) {
      const gameId = hot[i % hot.length]!;
      matcher.setOpen(gameId, false);
      matcher.setOpen(gameId, true);
      return matcher.openGameCount;
    },
  }),
  defineCase({
    name: 'cooperative: a reservation is made and expires',
    budget: 'O(log n)',
    ...sizes,
    setup: sharedFactory,
    run({ matcher, selective }, i) {
      matcher.reserve(selective[pick(i, selective.length)]!, ['seeker'], `ticket-${i}`, i);
      return matcher.expireReservations(i + RESERVATION_MS).length;
    },
  }),
  defineCase({
    name: 'cooperative: stats, match-all over a selective and a broad predicate',
    // The work is O(smallest set) = 4 games; membership tests in an n/2-game set still slow
    // with n through cache misses, which the classifier can read as a log factor.
    budget: 'O(log n)',
    ...sizes,
    setup: sharedFactory,
    run({ matcher, selective }, i) {
      const zone = selective[pick(i, selective.length)]!.get('zone')!;
      return matcher.stats([['act', 'i:1'], ['zone', zone]], 'all', i).players;
    },
  }),
];
caseCount = cases.length;

export default cases;
