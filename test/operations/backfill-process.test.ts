import { credentials, status } from '@grpc/grpc-js';
import { BackfillEndedError, GameServer, type BackfillFilled, type GameOrder } from '@gamefactory/game-server-sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suiteDirectory } from './cli-process.js';
import { findGame, type FindResult } from '../support/find-game.js';
import { until } from '../support/until.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 10000, ticketTtlSeconds: 300 }
factories:
  - name: squad
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 2
      batch: { maxTickets: 1000, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 300 }]
`;

/** The coordinator as an operator runs it, on `port` (0: any), with the suite's factories.yaml and its LMDB in `data`. */
function startCoordinator(dir: string, data: string, port: number): Promise<{ child: ChildProcess; port: number; exit: Promise<number | null> }> {
  // node itself with tsx's loader, not the tsx wrapper: SIGKILL must reach the process that listens.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'start', '--insecure', '--listen', `127.0.0.1:${port}`, '--metrics-listen', '127.0.0.1:0', '--config', join(dir, 'factories.yaml'), '--data', join(dir, data)],
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

const find = (client: MatchmakerClient, ticketId: string, score: number): Promise<FindResult> =>
  findGame(client, { ticketId, template: 'squad', party: [{ playerId: ticketId, score }], partition: { region: 'eu' } });

/** Retries while the coordinator is not reachable yet (the channel's reconnect backoff after a kill). */
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
 * A server hosting one running 2v2 ("g1") that the coordinator formed from four finds: 1450 and
 * 1550 against 1500 and 1500, the only split with equal teams. The 1550 then leaves.
 */
async function gameWithOneLeaver(address: string, cleanup: (() => void)[]) {
  const orders: GameOrder[] = [];
  const server = new GameServer({
    addresses: address,
    serverId: 's1',
    endpoint: 's1.example:7777',
    attributes: { region: 'eu' },
    capacity: { maxGames: 10 },
    reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
    createGame: (order) => {
      orders.push(order);
      return 'g1';
    },
  });
  cleanup.push(() => server.close());
  await server.start();
  const client = new MatchmakerClient(address, credentials.createInsecure());
  cleanup.push(() => client.close());
  const formed = await Promise.all([find(client, 'p1450', 1450), find(client, 'p1550', 1550), find(client, 'p1500a', 1500), find(client, 'p1500b', 1500)]);
  for (const { assignment } of formed) await server.admit('g1', assignment.gameId === 'g1' ? idOf(formed, assignment) : '', assignment.reservationToken);
  const teamOf = new Map(orders[0]!.players.map((p) => [p.playerId, p.team!]));
  expect(teamOf.get('p1450')).toBe(teamOf.get('p1550'));
  server.leave('g1', 'p1550');
  const remaining = [
    { playerId: 'p1450', team: teamOf.get('p1450')!, score: 1450 },
    { playerId: 'p1500a', team: teamOf.get('p1500a')!, score: 1500 },
    { playerId: 'p1500b', team: teamOf.get('p1500b')!, score: 1500 },
  ];
  return { server, client, remaining, leaverTeam: teamOf.get('p1550')! };
}

function idOf(formed: FindResult[], assignment: FindResult['assignment']): string {
  return ['p1450', 'p1550', 'p1500a', 'p1500b'][formed.findIndex((f) => f.assignment === assignment)]!;
}

describe('competitive backfill end to end, a real coordinator process over gRPC', () => {
  const { dir, cleanup } = suiteDirectory('gamefactory backfill-process.test-', YAML);

  it('fills a 2v2 where one player left with the newcomer that balances the teams after the fill; the server admits it by token; cancelled and expired requests end so', async () => {
    const coordinator = await startCoordinator(dir, 'balance', 0);
    cleanup.push(() => coordinator.child.kill('SIGKILL'));
    const { server, client, remaining, leaverTeam } = await gameWithOneLeaver(`127.0.0.1:${coordinator.port}`, cleanup);

    // Two tickets wait (too few for a game of four): 1470 is nearer the remaining players' mean
    // (1483), 1550 makes the leaver's team 1450 + 1550 against 1500 + 1500 again.
    const nearer = find(client, 'n1470', 1470);
    nearer.catch(() => {});
    const balancing = find(client, 'n1550', 1550);
    const backfill = server.requestBackfill('g1', { backfillId: 'bf-balance', players: remaining });
    await backfill.queued;
    const filled: BackfillFilled = await backfill.filled;
    expect(filled.players).toEqual([{ playerId: 'n1550', team: leaverTeam, token: expect.any(String) }]);
    const { assignment } = await balancing;
    expect(assignment).toMatchObject({ gameId: 'g1', serverId: 's1', serverEndpoint: 's1.example:7777', created: false, team: leaverTeam, reservationToken: filled.players[0]!.token });
    await server.admit('g1', 'n1550', assignment.reservationToken);

    // The game as the server now sees it, scored 500 lower: no waiting ticket (1470) lies within its window.
    server.leave('g1', 'n1550');
    const weaker = remaining.map((p) => ({ ...p, score: p.score - 500 }));
    // Cancelled by the server: its `filled` rejects.
    const cancelled = server.requestBackfill('g1', { backfillId: 'bf-cancel', players: weaker });
    await cancelled.queued;
    expect(server.cancelBackfill('g1', 'bf-cancel')).toBe(true);
    await expect(cancelled.filled).rejects.toMatchObject({ end: 'cancelled', code: status.CANCELLED });

    // Expired: nobody within its window for its ttl_ms.
    const expiring = server.requestBackfill('g1', { backfillId: 'bf-expire', players: weaker, ttlMs: 1500 });
    await expiring.queued;
    const ended = await expiring.filled.catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(BackfillEndedError);
    expect(ended).toMatchObject({ end: 'expired', code: status.DEADLINE_EXCEEDED });

    // Refused with a reason naming the field: a team the template does not have.
    const refused = server.requestBackfill('g1', { backfillId: 'bf-refused', players: [{ playerId: 'p1450', team: 5, score: 1450 }] });
    await expect(refused.filled).rejects.toMatchObject({ end: 'refused', code: status.INVALID_ARGUMENT, message: expect.stringMatching(/^players\[0\]\.team: /) });
  }, 120_000);

  it('a queued backfill request survives a kill -9 of the coordinator: the server re-announces its game and the request is filled', async () => {
    const first = await startCoordinator(dir, 'kill', 0);
    cleanup.push(() => first.child.kill('SIGKILL'));
    const address = `127.0.0.1:${first.port}`;
    const { server, client, remaining, leaverTeam } = await gameWithOneLeaver(address, cleanup);
    let connections = 0;
    server.on('connected', () => connections++);

    const backfill = server.requestBackfill('g1', { backfillId: 'bf-kill', players: remaining });
    // QUEUED is told only once the request is committed to LMDB.
    await backfill.queued;
    first.child.kill('SIGKILL');
    expect(await first.exit).toBe(-1);

    const second = await startCoordinator(dir, 'kill', first.port);
    cleanup.push(() => second.child.kill('SIGKILL'));
    await until(() => connections === 1, 30_000, 'the server to reconnect and re-announce g1');
    // The SDK does not send the request again: the coordinator took it from its store.
    const newcomer = await retryWhileUnavailable(() => find(client, 'n1550', 1550));
    expect(newcomer.assignment).toMatchObject({ gameId: 'g1', serverId: 's1', created: false, team: leaverTeam });
    const filled = await backfill.filled;
    expect(filled.players).toEqual([{ playerId: 'n1550', team: leaverTeam, token: expect.any(String) }]);
    await server.admit('g1', 'n1550', newcomer.assignment.reservationToken);
  }, 120_000);
});
