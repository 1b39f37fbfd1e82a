import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { constants } from 'node:http2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FindGamesRequest, MatchmakerClient, MatchmakerService } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { silentLog } from '../../src/coordinator/ports.js';
import type { CoordinatorCommands, CoordinatorView } from '../../src/coordinator/edges/index.js';
import { startGrpcServer, type RunningGrpcServer } from '../../src/transport/grpc/grpc-server.js';
import { StreamResetBudget } from '../../src/transport/grpc/stream-reset-budget.js';
import { findGameRequest } from '../support/find-game.js';
import { eventually, TestCoordinator } from '../integration/harness.js';
import { frame, RawGrpcConnection, write } from './raw-http2.js';

/**
 * nghttp2 (every Node http2 server) closes a connection with GOAWAY INTERNAL_ERROR once its client
 * has reset ~1,000 streams faster than 33 a second: every call in flight on it failed INTERNAL
 * ("Session closed with error code 2"), as the fuzzer's shared connection did after ~20,000 cases.
 * A client that cancels its calls is legitimate; its connection must be ended gracefully instead.
 */
const YAML = `
limits: { rate: { findGame: { perSecond: 1000000, burst: 1000000 }, findGames: { perSecond: 1000000, burst: 1000000 } } }
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 100000, ticketTtlSeconds: 300 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;
const request = (ticketId: string) => findGameRequest({ ticketId, template: 'coop', party: [`p-${ticketId}`], partition: { region: 'eu' } });

/** FindGames the client cancels once the coordinator holds their tickets: one RST_STREAM each from the client. */
async function cancelledFinds(client: MatchmakerClient, view: CoordinatorView, ticketIds: readonly string[]): Promise<number[]> {
  const calls = ticketIds.map((ticketId) => {
    const call = client.findGame(request(ticketId));
    call.on('data', () => {});
    let ended = false;
    const end = new Promise<number>((resolve) => {
      call.on('error', (e: ServiceError) => resolve(e.code));
      call.on('end', () => resolve(status.OK));
    }).finally(() => (ended = true));
    return { call, end, held: () => ended || view.ticket(ticketId) !== undefined };
  });
  // Held by the coordinator (or already ended: the codes below say how).
  await eventually(() => calls.every((c) => c.held()));
  for (const { call } of calls) call.cancel();
  return Promise.all(calls.map((c) => c.end));
}

describe('a client that resets many streams on one connection', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
    // A server that never starts a game, so every find waits.
    await coordinator.server({ serverId: 's1', maxGames: 1 }, { decide: () => 'ignore' });
  });
  afterEach(() => coordinator.stop());

  it('keeps its calls in flight: 1,500 cancelled finds neither fail a neighbour stream nor any later call', async () => {
    const client = coordinator.client();
    let bystanderError: ServiceError | undefined;
    const bystander = client.findGames();
    bystander.on('data', () => {});
    bystander.on('error', (e: ServiceError) => (bystanderError = e));
    bystander.write({ request: { $case: 'find', value: request('bystander') } });
    const view = coordinator.running.coordinator.view;
    await eventually(() => view.ticket('bystander') !== undefined);

    const codes = new Map<number, number>();
    for (let batch = 0; batch < 30; batch++) {
      const ends = await cancelledFinds(client, view, Array.from({ length: 50 }, (_, i) => `c${batch}-${i}`));
      for (const code of ends) codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ [status.CANCELLED]: 1500 });

    // The stream that was open all along is still served: its next find is answered on it.
    bystander.write({ request: { $case: 'find', value: request('bystander-2') } });
    await eventually(() => view.ticket('bystander-2') !== undefined);
    expect(bystanderError).toBeUndefined();
    expect(view.ticket('bystander')).toBeDefined();
    // And a new call works (on a new connection, once the old one was ended gracefully).
    expect(await cancelledFinds(client, view, ['after'])).toEqual([status.CANCELLED]);
    bystander.end();
  }, 120_000);
});

describe('the graceful end still bounds a client that only resets streams', () => {
  let server: RunningGrpcServer | undefined;
  afterEach(async () => {
    await server?.shutdown(100);
  });

  it('a raw client resetting streams as fast as it can is sent GOAWAY NO_ERROR long before nghttp2 would send INTERNAL_ERROR', async () => {
    const commands = { find: () => [], cancel: () => [], abandon: () => {}, connectServer: () => [], disconnectServer: () => {}, onServerEvent: () => {}, beginShutdown: () => {} } as unknown as CoordinatorCommands;
    const rotated: string[] = [];
    server = await startGrpcServer('127.0.0.1:0', { commands, view: {} as CoordinatorView, keepaliveIntervalMs: 1000, now: Date.now, log: silentLog, onStreamResetsRotated: (peer) => rotated.push(peer) });
    const connection = new RawGrpcConnection(`127.0.0.1:${server.port}`);
    const goaways: number[] = [];
    connection.session.on('goaway', (code: number) => goaways.push(code));
    try {
      let sent = 0;
      while (goaways.length === 0 && sent < 1000) {
        const call = connection.open(MatchmakerService.findGames.path, { read: true });
        await write(call.stream, frame(FindGamesRequest.encode({ request: { $case: 'find', value: request(`r${sent}`) } }).finish()));
        call.stream.close(constants.NGHTTP2_CANCEL);
        sent++;
      }
      await eventually(() => goaways.length > 0);
      expect(goaways[0]).toBe(constants.NGHTTP2_NO_ERROR);
      expect(rotated).toEqual(['127.0.0.1']);
      expect(sent).toBeLessThan(1000);
    } finally {
      connection.close();
    }
  });
});

describe('calls that end cleanly', () => {
  let server: RunningGrpcServer | undefined;
  let client: MatchmakerClient | undefined;
  afterEach(async () => {
    client?.close();
    await server?.shutdown(100);
  });

  it('are not counted: 1,500 successful calls on one connection never end it', async () => {
    const commands = { find: () => [], cancel: () => true, abandon: () => {}, connectServer: () => [], disconnectServer: () => {}, onServerEvent: () => {}, beginShutdown: () => {} } as unknown as CoordinatorCommands;
    const rotated: string[] = [];
    server = await startGrpcServer('127.0.0.1:0', { commands, view: {} as CoordinatorView, keepaliveIntervalMs: 1000, now: Date.now, log: silentLog, onStreamResetsRotated: (peer) => rotated.push(peer) });
    client = new MatchmakerClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const c = client;
    for (let batch = 0; batch < 15; batch++) {
      const codes = await Promise.all(Array.from({ length: 100 }, (_, i) => new Promise<number>((resolve) => c.cancelFind({ ticketId: `t${batch}-${i}` }, (e) => resolve(e?.code ?? status.OK)))));
      expect(codes.every((code) => code === status.OK)).toBe(true);
    }
    expect(rotated).toEqual([]);
  });
});

describe('calls the coordinator answers with an error', () => {
  let server: RunningGrpcServer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    client?.close();
    await server?.shutdown(100);
  });

  it('are not counted: 1,500 undecodable requests on one connection (INVALID_ARGUMENT each, no client reset) never end it', async () => {
    const commands = { find: () => [], cancel: () => true, abandon: () => {}, connectServer: () => [], disconnectServer: () => {}, onServerEvent: () => {}, beginShutdown: () => {} } as unknown as CoordinatorCommands;
    const rotated: string[] = [];
    server = await startGrpcServer('127.0.0.1:0', { commands, view: {} as CoordinatorView, keepaliveIntervalMs: 1000, now: Date.now, log: silentLog, onStreamResetsRotated: (peer) => rotated.push(peer) });
    client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const c = client;
    const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    for (let batch = 0; batch < 15; batch++) {
      const codes = await Promise.all(
        Array.from({ length: 100 }, () => new Promise<number>((resolve) => c.makeUnaryRequest(MatchmakerService.cancelFind.path, (b: Buffer) => b, (b: Buffer) => b, garbage, (e) => resolve(e?.code ?? status.OK)))),
      );
      expect(codes.every((code) => code === status.INVALID_ARGUMENT)).toBe(true);
    }
    expect(rotated).toEqual([]);
  });
});

describe('StreamResetBudget', () => {
  it('is nghttp2\'s token bucket: a burst, then a steady refill', () => {
    const budget = new StreamResetBudget({ burst: 3, perSecond: 2 }, 0);
    expect([budget.take(0), budget.take(0), budget.take(0), budget.take(0)]).toEqual([2, 1, 0, 0]);
    expect(budget.take(1000)).toBe(1); // two refilled, one taken
    expect(budget.take(60_000)).toBe(2); // never above the burst
  });
});
