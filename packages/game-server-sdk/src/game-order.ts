import { plainAttributes, type PlainValue } from '@gamefactory/protocol';
import type { CreateGame } from '@gamefactory/protocol/v1/game_server_link';

/** A CreateGame order as plain values: what game to make, and who is coming. */
export interface GameOrder {
  readonly requestId: string;
  /** e.g. "diablo/difficulty=hard/hardcore=false/version=v201". */
  readonly factory: string;
  readonly partition: Readonly<Record<string, PlainValue>>;
  readonly matchable: Readonly<Record<string, PlainValue>>;
  /** The players who will join, each with the token it will present; `team` is set for competitive games. */
  readonly players: readonly { readonly playerId: string; readonly token: string; readonly team?: number }[];
  /** Answer within this long or the coordinator takes the order back and places the players elsewhere. */
  readonly confirmWithinMs: number;
  /** Competitive games: the map and region chosen. */
  readonly map?: string;
  readonly region?: string;
  /** Competitive games: the predicted balance the coordinator's matcher gave the game. */
  readonly quality?: { readonly favouriteWinProbability: number; readonly matchQuality: number; readonly gapSigma: number };
}

export function gameOrder(order: CreateGame): GameOrder {
  const competitive = order.seatTeams.length === order.seats.length && order.seats.length > 0;
  return {
    requestId: order.requestId,
    factory: order.factory,
    partition: plainAttributes(order.partitionAttributes),
    matchable: plainAttributes(order.matchableAttributes),
    players: order.seats.map((s, i) => (competitive ? { playerId: s.playerId, token: s.reservationToken, team: order.seatTeams[i] } : { playerId: s.playerId, token: s.reservationToken })),
    confirmWithinMs: order.confirmWithinMs,
    ...(order.map ? { map: order.map } : {}),
    ...(order.region ? { region: order.region } : {}),
    ...(order.quality
      ? { quality: { favouriteWinProbability: order.quality.favouriteWinProbability, matchQuality: order.quality.matchQuality, gapSigma: order.quality.gapSigma } }
      : {}),
  };
}
