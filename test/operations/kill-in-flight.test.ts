import { credentials, status } from '@grpc/grpc-js';
import { GameServer, type GameOrder } from '@gamefactory/game-server-sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suiteDirectory } from './cli-process.js';
import { findGame, findGameRequest } from '../support/find-game.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 60000, ticketTtlSeconds: 300 }
factories:
  - name: party
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;

/** The CLI as an operator runs it, on `port` (0: any); resolves with the gRPC port it listens on. */
function startCli(dir: string, port: number): Promise<{ child: ChildProcess; port: number; exit: Promise<number | null> }> {
  // node itself with tsx's loader, not the tsx wrapper: SIGKILL must reach the process that listens.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'start', '--insecure', '--listen', `127.0.0.1:${port}`, '--metrics-listen', '127.0.0.1:0', '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data')],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(out);
      if (match) resolve({ child, port: Number(match[1]), exit });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exit.then((code) => reject(new Error(`the coordinator exited (${code}) before listening:\n${out}`)));
  });
}

const until = async (check: () => boolean, what: string, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Retries while the coordinator is not reachable yet (the channel's reconnect backoff after the kill). */
async function retryWhileUnavailable<T>(call: () => Promise<T>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if ((error as { code?: number }).code !== status.UNAVAILABLE || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * kill -9 of the coordinator process while a CreateGame is in flight: the game server creates the
 * game anyway, reconnects to the restarted coordinator and re-announces it; the player's retry
 * with the same ticket id gets that game's endpoint and token, and the server lets the player in.
 */
describe('kill -9 while a CreateGame is in flight', () => {
  const { dir, cleanup } = suiteDirectory('gamefactory kill-in-flight.test-', YAML);

  it('the retry with the same ticket id gets the re-announced game, its endpoint and its token', async () => {
    const first = await startCli(dir, 0);
    cleanup.push(() => first.child.kill('SIGKILL'));
    const address = `127.0.0.1:${first.port}`;

    let order: GameOrder | undefined;
    let create: (() => void) | undefined;
    let connections = 0;
    const server = new GameServer({
      addresses: address,
      serverId: 's1',
      endpoint: 's1.example:7777',
      attributes: { region: 'eu' },
      capacity: { maxGames: 10 },
      reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
      // The server takes its time: the coordinator is killed before the game exists.
      createGame: (o) =>
        new Promise<string>((resolve) => {
          order = o;
          create = () => resolve('g-1');
        }),
    });
    server.on('connected', () => connections++);
    cleanup.push(() => server.close());
    await server.start();

    const client = new MatchmakerClient(address, credentials.createInsecure());
    cleanup.push(() => client.close());
    const request = { ticketId: 'x', template: 'party', party: ['p1', 'p2'], partition: { region: 'eu' } };
    const call = client.findGame(findGameRequest(request));
    call.on('error', () => {}); // cut by the kill
    await until(() => order !== undefined, 'the CreateGame order');
    // The step that sent the order also stored the ticket; LMDB commits it right after.
    await new Promise((r) => setTimeout(r, 500));

    first.child.kill('SIGKILL');
    expect(await first.exit).toBe(-1);
    create!(); // the server creates the game; its GameCreated has nowhere to go
    const second = await startCli(dir, first.port);
    cleanup.push(() => second.child.kill('SIGKILL'));
    // The player retries at once (as the matchmaking client does, on UNAVAILABLE): before or after
    // the server is back, it gets the game the server re-announces.
    const retry = await retryWhileUnavailable(() => findGame(client, request));
    await until(() => connections === 2, 'the server to hear its welcome back'); // the game came from its hello
    expect(retry.assignment).toMatchObject({
      gameId: 'g-1',
      serverId: 's1',
      serverEndpoint: 's1.example:7777',
      reservationToken: order!.players[0]!.token,
      seatTokens: { p1: order!.players[0]!.token, p2: order!.players[1]!.token },
      created: true,
    });
    // Both players' seats are held on the server, each under its own token.
    await server.admit('g-1', 'p1', retry.assignment.reservationToken);
    await server.admit('g-1', 'p2', retry.assignment.seatTokens['p2']!);
  }, 120_000);
});
