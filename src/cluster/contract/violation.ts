/** The contract's rules, one name each (README.md beside this file). */
export type Rule =
  /** No player in two live tickets, no player seated in two live games, no ticket given two games. */
  | 'one-live-ticket'
  /** No game with more seats than its size. */
  | 'game-size'
  /** No server with more live games than it advertised. */
  | 'server-slots'
  /** Every ticket told queued ends assigned, cancelled by its owner or expired by its TTL. */
  | 'no-lost'
  /** Every player told an assignment holds a seat its game server knew of before. */
  | 'told-has-seat'
  /** Within a factory, tickets that waited are assigned in first-find order, told their true position. */
  | 'fifo'
  /** A shard's fencing tokens strictly increase. */
  | 'fence-monotonic'
  /** Every call gets an answer or an error by its deadline. */
  | 'answered-in-time'
  /** A dead owner's waiting tickets are assigned within the bound once capacity exists. */
  | 'failover-bound';

export interface Violation {
  readonly rule: Rule;
  /** A short name of the case within the rule ('seated in two games', 'told without seat', 'inversion'...). */
  readonly what: string;
  /** When it became a violation, on the feeder's clock. */
  readonly at: number;
  /** The ids involved (ticket, player, server, game, shard, call...). */
  readonly ids: Readonly<Record<string, string | number>>;
  readonly detail: string;
}

export function violation(rule: Rule, what: string, at: number, ids: Record<string, string | number>, detail: string): Violation {
  return { rule, what, at, ids, detail };
}
