import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { findGameRequest } from '../support/find-game.js';
import type { CoordinatorCommands, CoordinatorView } from '../../src/coordinator/edges/index.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { startGrpcServer, type RunningGrpcServer } from '../../src/transport/grpc/grpc-server.js';

/**
 * Issue 10, defect 5: the same failure maps to the same code on every method, whether it ends a
 * FindGame call or arrives as a FindGames `error` update. The transport runs against fakes of the
 * core's edges: it needs nothing else.
 */
describe('one mapping of errors to codes', () => {
  let server: RunningGrpcServer | undefined;
  let client: MatchmakerClient | undefined;
  afterEach(async () => {
    client?.close();
    await server?.shutdown();
  });

  const start = async (failure: unknown) => {
    const commands: CoordinatorCommands = {
      find: () => {
        throw failure;
      },
      cancel: () => {
        throw failure;
      },
      abandon: () => {},
      connectServer: () => [],
      disconnectServer: () => {},
      onServerEvent: () => {},
      beginShutdown: () => {},
    };
    server = await startGrpcServer('127.0.0.1:0', { commands, view: {} as CoordinatorView, keepaliveIntervalMs: 1000, now: Date.now, log: silentLog });
    client = new MatchmakerClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    return client;
  };

  const viaFindGame = (c: MatchmakerClient) =>
    new Promise<number>((resolve) => {
      const call = c.findGame(findGameRequest({ ticketId: 't1', template: 'diablo', party: ['p1'] }));
      call.on('data', () => {});
      call.on('error', (e: ServiceError) => resolve(e.code));
      call.on('end', () => resolve(status.OK));
    });

  const viaFindGames = (c: MatchmakerClient) =>
    new Promise<number>((resolve) => {
      const call = c.findGames();
      call.on('data', (u: FindGameUpdate) => {
        if (u.update?.$case === 'error') resolve(u.update.value.code);
      });
      call.write({ request: { $case: 'find', value: findGameRequest({ ticketId: 't1', template: 'diablo', party: ['p1'] }) } });
      call.end();
    });

  const viaCancel = (c: MatchmakerClient) =>
    new Promise<number>((resolve) => c.cancelFind({ ticketId: 't1' }, (e) => resolve(e?.code ?? status.OK)));

  it('an unexpected failure (a bug) is INTERNAL on FindGame, FindGames and CancelFind alike', async () => {
    const c = await start(new Error('boom'));
    expect([await viaFindGame(c), await viaFindGames(c), await viaCancel(c)]).toEqual([status.INTERNAL, status.INTERNAL, status.INTERNAL]);
  });

  it('a core refusal keeps its code on every method', async () => {
    const c = await start(new MatchmakingError('FAILED_PRECONDITION', 'no server'));
    expect([await viaFindGame(c), await viaFindGames(c), await viaCancel(c)]).toEqual([
      status.FAILED_PRECONDITION,
      status.FAILED_PRECONDITION,
      status.FAILED_PRECONDITION,
    ]);
  });
});
