import { describe, expect, it } from 'vitest';
import { GameResult, ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { validateResult } from '../../src/ratings/result-rules.js';
import { decodeGameResult, encodeGameResultAck } from '../../src/transport/grpc/game-result-codec.js';

describe('GameResult on the wire', () => {
  it('round-trips through protobuf into the result rules\' shape, with the reporting server', () => {
    const bytes = ServerMessage.encode({
      event: {
        $case: 'gameResult',
        value: { gameId: 'g', teams: [{ playerIds: ['a', 'b'], rank: 1 }, { playerIds: ['c'], rank: 0 }], durationSeconds: 90, leftEarly: ['b'] },
      },
    }).finish();
    const message = ServerMessage.decode(bytes);
    if (message.event?.$case !== 'gameResult') throw new Error('lost the case');
    expect(decodeGameResult(message.event.value, 's1')).toEqual({
      gameId: 'g',
      serverId: 's1',
      teams: [{ players: ['a', 'b'], rank: 1 }, { players: ['c'], rank: 0 }],
      durationSeconds: 90,
      leftEarly: ['b'],
    });
  });

  it('passes a duration that is not a number to the core, whose rules refuse it naming the field', () => {
    const wire = GameResult.fromPartial({ gameId: 'g', teams: [{ playerIds: ['a'], rank: 0 }, { playerIds: ['b'], rank: 1 }], durationSeconds: Number.NaN });
    const decoded = decodeGameResult(wire, 's');
    expect(Number.isNaN(decoded.durationSeconds)).toBe(true);
    expect(() => validateResult(decoded, undefined)).toThrow(/^game_result.duration_seconds:/);
  });

  it('acknowledges with applied and the reason', () => {
    expect(encodeGameResultAck('g', false, 'repeat')).toEqual({ order: { $case: 'gameResultAck', value: { gameId: 'g', applied: false, reason: 'repeat' } } });
  });
});
