import type { CoordinatorMessage, GameResult } from '../../generated/gamefactory/v1/game_server_link.js';
import type { ReportedResult } from '../../ratings/result-rules.js';

/**
 * GameResult off a server's stream into the rules' shape. Field checks are all in the core's
 * validateResult, so a refusal reaches the server as `rejected` with its code and message.
 */
export function decodeGameResult(wire: GameResult, serverId: string): ReportedResult {
  return {
    gameId: wire.gameId,
    serverId,
    teams: wire.teams.map((t) => ({ players: t.playerIds, rank: t.rank })),
    durationSeconds: wire.durationSeconds,
    leftEarly: wire.leftEarly,
  };
}

/** The acknowledgement order: applied = false for a repeat or a game that did not count. */
export function encodeGameResultAck(gameId: string, applied: boolean, reason = ''): CoordinatorMessage {
  return { order: { $case: 'gameResultAck', value: { gameId, applied, reason } } };
}
