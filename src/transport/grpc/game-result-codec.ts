import { invalidArgument } from '../../errors/index.js';
import type { CoordinatorMessage, GameResult } from '../../generated/gamefactory/v1/game_server_link.js';
import type { ReportedResult } from '../../ratings/result-rules.js';

/** GameResult off a server's stream into the rules' shape; field checks are in validateResult. */
export function decodeGameResult(wire: GameResult, serverId: string): ReportedResult {
  if (!Number.isFinite(wire.durationSeconds)) throw invalidArgument('game_result.duration_seconds', 'must be a finite number');
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
