/**
 * The cases that define cooperative matching (issue 3): fill vs spread, wildcards, open/closed
 * and full games, the most-recent-start tie-break, and stats under match-all/any/none.
 *
 * One table, run twice (Open Match's filter package does the same): in process against
 * CooperativeMatcher (cooperative-matcher.test.ts), and over gRPC by the coordinator's
 * integration tests. It is therefore written in transport-neutral terms: attribute values are
 * YAML-like scalars (turn them into AttributeValues with valueFromScalar), times are ms.
 *
 * Each case sets up games, then runs its probes in order. A `find` reserves seats like a
 * FindGame does, so later probes see the seats taken by earlier ones. `expect: null` means no
 * existing game matches (over gRPC: a new game is created instead).
 */
import { valueFromScalar, valueKey, type AttributeSet } from '../../src/attributes/attribute-value.js';

export type Scalar = string | number | boolean;

/** A case's attributes as the matcher's AttributeSet (integers stay ints, strings strings). */
export function attributeSetOf(attributes: Readonly<Record<string, Scalar>>): AttributeSet {
  return new Map(Object.entries(attributes).map(([key, value]) => [key, valueKey(valueFromScalar(value))]));
}

export interface CaseGame {
  readonly gameId: string;
  readonly attributes: Readonly<Record<string, Scalar>>;
  readonly playerIds: readonly string[];
  readonly open?: boolean; // default true
  readonly startedAt: number;
}

export interface FindProbe {
  readonly kind: 'find';
  readonly why: string;
  readonly query: Readonly<Record<string, Scalar>>;
  readonly party: readonly string[];
  readonly expect: string | null;
}

export interface StatsProbe {
  readonly kind: 'stats';
  readonly why: string;
  readonly predicates: readonly (readonly [string, Scalar])[];
  readonly mode: 'all' | 'any' | 'none';
  /** The games counted; the expected figures below follow from them. */
  readonly expectGames: readonly string[];
  readonly expect: {
    readonly games: number;
    readonly openGames: number;
    readonly players: number;
    readonly openSlots: number;
    readonly minDurationMs: number;
    readonly maxDurationMs: number;
    readonly averageDurationMs: number;
  };
}

export interface MatchingCase {
  readonly name: string;
  readonly maxPlayers: number;
  readonly order: 'fill' | 'spread';
  readonly matchableKeys: readonly string[];
  /** Clock at which the probes run (durations are now − startedAt). */
  readonly now: number;
  readonly games: readonly CaseGame[];
  readonly probes: readonly (FindProbe | StatsProbe)[];
}

const KEYS = ['act', 'quest'] as const;
const NOW = 10_000;

/** Three open games of 4 seats with 3, 1 and 2 open slots, all on act 1. */
const slotLadder: readonly CaseGame[] = [
  { gameId: 'three-open', attributes: { act: 1 }, playerIds: ['a1'], startedAt: 1_000 },
  { gameId: 'one-open', attributes: { act: 1 }, playerIds: ['b1', 'b2', 'b3'], startedAt: 2_000 },
  { gameId: 'two-open', attributes: { act: 1 }, playerIds: ['c1', 'c2'], startedAt: 3_000 },
];

export const matchingCases: readonly MatchingCase[] = [
  {
    name: 'fill: fewest sufficient open slots first',
    maxPlayers: 4,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: slotLadder,
    probes: [
      { kind: 'find', why: 'a solo fills the last seat', query: { act: 1 }, party: ['p1'], expect: 'one-open' },
      { kind: 'find', why: 'that game is now full; next fewest', query: { act: 1 }, party: ['p2'], expect: 'two-open' },
      { kind: 'find', why: 'a pair skips the game with one slot left', query: {}, party: ['p3', 'p4'], expect: 'three-open' },
      { kind: 'find', why: 'one seat left in two-open', query: {}, party: ['p5'], expect: 'two-open' },
      { kind: 'find', why: 'no game has two seats any more', query: {}, party: ['p6', 'p7'], expect: null },
      { kind: 'find', why: 'last seat of the factory', query: {}, party: ['p8'], expect: 'three-open' },
      { kind: 'find', why: 'everything is full', query: {}, party: ['p9'], expect: null },
    ],
  },
  {
    name: 'spread: most open slots first',
    maxPlayers: 4,
    order: 'spread',
    matchableKeys: KEYS,
    now: NOW,
    games: slotLadder,
    probes: [
      { kind: 'find', why: 'the emptiest game first', query: { act: 1 }, party: ['p1'], expect: 'three-open' },
      { kind: 'find', why: 'two-open and three-open now tie at 2; newest wins', query: {}, party: ['p2'], expect: 'two-open' },
      { kind: 'find', why: 'three-open still has 2', query: {}, party: ['p3', 'p4'], expect: 'three-open' },
      { kind: 'find', why: 'a party of 3 fits nowhere', query: {}, party: ['p5', 'p6', 'p7'], expect: null },
    ],
  },
  {
    name: 'a party only considers games with room for all of it',
    maxPlayers: 4,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: slotLadder,
    probes: [
      { kind: 'find', why: 'three seats only in three-open', query: {}, party: ['p1', 'p2', 'p3'], expect: 'three-open' },
      { kind: 'find', why: 'a full party of 4 never fits an existing game', query: {}, party: ['q1', 'q2', 'q3', 'q4'], expect: null },
    ],
  },
  {
    name: 'wildcards: keys a query leaves out match any value, or none',
    maxPlayers: 4,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: [
      { gameId: 'act1-q2', attributes: { act: 1, quest: 'q2' }, playerIds: ['a'], startedAt: 1_000 },
      { gameId: 'act1-q5', attributes: { act: 1, quest: 'q5' }, playerIds: ['b'], startedAt: 2_000 },
      { gameId: 'act2-q2', attributes: { act: 2, quest: 'q2' }, playerIds: ['c'], startedAt: 3_000 },
      { gameId: 'act3', attributes: { act: 3 }, playerIds: ['d'], startedAt: 4_000 },
    ],
    probes: [
      { kind: 'find', why: 'quest left out: either act 1 game; both have 3 open, newest wins', query: { act: 1 }, party: ['p1'], expect: 'act1-q5' },
      { kind: 'find', why: 'both keys given: the exact game', query: { act: 1, quest: 'q2' }, party: ['p2'], expect: 'act1-q2' },
      { kind: 'find', why: 'act left out: quest q2 in any act; act1-q2 is fuller', query: { quest: 'q2' }, party: ['p3'], expect: 'act1-q2' },
      { kind: 'find', why: 'a game without quest does not match a query with quest', query: { act: 3, quest: 'q2' }, party: ['p4'], expect: null },
      { kind: 'find', why: 'but matches one without it', query: { act: 3 }, party: ['p5'], expect: 'act3' },
      { kind: 'find', why: 'values are typed: the string "1" is not the integer 1', query: { act: '1' }, party: ['p6'], expect: null },
      { kind: 'find', why: 'no keys at all: the fullest game anywhere (act1-q2, 1 open)', query: {}, party: ['p7'], expect: 'act1-q2' },
    ],
  },
  {
    name: 'closed and full games are never matched',
    maxPlayers: 2,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: [
      { gameId: 'closed', attributes: { act: 1 }, playerIds: ['a'], open: false, startedAt: 5_000 },
      { gameId: 'full', attributes: { act: 1 }, playerIds: ['b', 'c'], startedAt: 5_000 },
      { gameId: 'over-full', attributes: { act: 1 }, playerIds: ['d', 'e', 'f'], startedAt: 5_000 },
      { gameId: 'open', attributes: { act: 1 }, playerIds: [], startedAt: 1_000 },
    ],
    probes: [
      { kind: 'find', why: 'only the open game with room', query: { act: 1 }, party: ['p1'], expect: 'open' },
      { kind: 'find', why: 'its last seat', query: { act: 1 }, party: ['p2'], expect: 'open' },
      { kind: 'find', why: 'nothing left', query: { act: 1 }, party: ['p3'], expect: null },
    ],
  },
  {
    name: 'equally good games: the most recently started wins (more time left to play)',
    maxPlayers: 4,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: [
      { gameId: 'old', attributes: { act: 1 }, playerIds: ['a', 'b'], startedAt: 1_000 },
      { gameId: 'newest', attributes: { act: 1 }, playerIds: ['c', 'd'], startedAt: 9_000 },
      { gameId: 'middle', attributes: { act: 1 }, playerIds: ['e', 'f'], startedAt: 5_000 },
      { gameId: 'newest-but-emptier', attributes: { act: 1 }, playerIds: ['g'], startedAt: 9_500 },
    ],
    probes: [
      { kind: 'find', why: 'newest among the fullest', query: { act: 1 }, party: ['p1'], expect: 'newest' },
      { kind: 'find', why: 'a pair: the newest game still with 2 open', query: { act: 1 }, party: ['p2', 'p3'], expect: 'middle' },
      { kind: 'find', why: 'newest is now down to 1 open: fill prefers it', query: { act: 1 }, party: ['p4'], expect: 'newest' },
    ],
  },
  {
    name: 'stats: match-all, match-any, match-none and no predicates',
    maxPlayers: 4,
    order: 'fill',
    matchableKeys: KEYS,
    now: NOW,
    games: [
      { gameId: 'g1', attributes: { act: 1, quest: 'q1' }, playerIds: ['a'], startedAt: 1_000 },
      { gameId: 'g2', attributes: { act: 1, quest: 'q2' }, playerIds: ['b', 'c'], startedAt: 3_000 },
      { gameId: 'g3', attributes: { act: 2, quest: 'q1' }, playerIds: ['d', 'e', 'f'], open: false, startedAt: 6_000 },
      { gameId: 'g4', attributes: { act: 3 }, playerIds: ['g', 'h', 'i', 'j'], startedAt: 8_000 },
    ],
    probes: [
      {
        kind: 'stats',
        why: 'no predicates: every game, open or closed',
        predicates: [],
        mode: 'all',
        expectGames: ['g1', 'g2', 'g3', 'g4'],
        // open slots: g1 3 + g2 2 + g4 0 (g3 is closed)
        expect: { games: 4, openGames: 3, players: 10, openSlots: 5, minDurationMs: 2_000, maxDurationMs: 9_000, averageDurationMs: 5_500 },
      },
      {
        kind: 'stats',
        why: 'match-all: act 1 and quest q1',
        predicates: [['act', 1], ['quest', 'q1']],
        mode: 'all',
        expectGames: ['g1'],
        expect: { games: 1, openGames: 1, players: 1, openSlots: 3, minDurationMs: 9_000, maxDurationMs: 9_000, averageDurationMs: 9_000 },
      },
      {
        kind: 'stats',
        why: 'match-all with no common game',
        predicates: [['act', 3], ['quest', 'q1']],
        mode: 'all',
        expectGames: [],
        expect: { games: 0, openGames: 0, players: 0, openSlots: 0, minDurationMs: 0, maxDurationMs: 0, averageDurationMs: 0 },
      },
      {
        kind: 'stats',
        why: 'match-any: act 3 or quest q1',
        predicates: [['act', 3], ['quest', 'q1']],
        mode: 'any',
        expectGames: ['g1', 'g3', 'g4'],
        expect: { games: 3, openGames: 2, players: 8, openSlots: 3, minDurationMs: 2_000, maxDurationMs: 9_000, averageDurationMs: 5_000 },
      },
      {
        kind: 'stats',
        why: 'match-none: neither act 3 nor quest q1',
        predicates: [['act', 3], ['quest', 'q1']],
        mode: 'none',
        expectGames: ['g2'],
        expect: { games: 1, openGames: 1, players: 2, openSlots: 2, minDurationMs: 7_000, maxDurationMs: 7_000, averageDurationMs: 7_000 },
      },
      {
        kind: 'stats',
        why: 'match-none of a value nobody uses: every game',
        predicates: [['act', 9]],
        mode: 'none',
        expectGames: ['g1', 'g2', 'g3', 'g4'],
        expect: { games: 4, openGames: 3, players: 10, openSlots: 5, minDurationMs: 2_000, maxDurationMs: 9_000, averageDurationMs: 5_500 },
      },
    ],
  },
];
