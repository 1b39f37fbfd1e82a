import type { BackfillRequest, ServerEvent, ServerOrder } from '../../coordinator/messages.js';
import { BackfillState, type BackfillStatus, type RequestBackfill } from '../../generated/gamefactory/v1/game_server_link.js';
import { status } from '@grpc/grpc-js';
import { checkId } from './codec.js';

/**
 * RequestBackfill off a server's stream. Only the id is checked here (a request without one
 * cannot be answered by id: it is `rejected`); every other field is checked by the core, which
 * answers a BackfillStatus REFUSED naming it.
 */
export function decodeRequestBackfill(wire: RequestBackfill): ServerEvent {
  const request: BackfillRequest = {
    backfillId: checkId('request_backfill.backfill_id', wire.backfillId),
    players: wire.players.map((p) => {
      const soft = Object.entries(p.softAttributes);
      return { playerId: p.playerId, team: p.team, score: p.score, ...(soft.length > 0 && { softAttributes: new Map(soft) }) };
    }),
    ttlMs: wire.ttlMs,
    map: wire.map,
    region: wire.region,
  };
  return { kind: 'requestBackfill', gameId: wire.gameId, request };
}

const STATES = {
  queued: BackfillState.BACKFILL_STATE_QUEUED,
  filled: BackfillState.BACKFILL_STATE_FILLED,
  cancelled: BackfillState.BACKFILL_STATE_CANCELLED,
  expired: BackfillState.BACKFILL_STATE_EXPIRED,
  gameEnded: BackfillState.BACKFILL_STATE_GAME_ENDED,
  refused: BackfillState.BACKFILL_STATE_REFUSED,
} as const;

export function encodeBackfillStatus(order: Extract<ServerOrder, { kind: 'backfillStatus' }>): BackfillStatus {
  return { backfillId: order.backfillId, gameId: order.gameId, state: STATES[order.state], code: status[order.code], reason: order.reason };
}
