import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findGameRequest } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';

const YAML = `
limits: { rate: { findGame: { perSecond: 10000, burst: 10000 } } }
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 300 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;
const TICKETS = 12;
const GRACE_MS = 3000;

/** The CLI as an operator runs it: `start` on port 0, JSON logs; resolves with the gRPC port it chose. */
function startCli(dir: string): Promise<{ child: ChildProcess; port: number; exit: Promise<{ code: number | null; at: number }> }> {
  // tsx itself (npx tsx without npm's wrapper, which does not pass SIGTERM on): it relays signals to node.
  const child = spawn(
    join(process.cwd(), 'node_modules/.bin/tsx'),
    ['src/cli/main.ts', 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0',
      '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data'), '--drain-grace-ms', String(GRACE_MS)],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exit = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(out);
      if (match) resolve({ child, port: Number(match[1]), exit });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exit.then(({ code }) => reject(new Error(`the coordinator exited (${code}) before listening:\n${out}`)));
  });
}

interface Waiter {
  readonly ticketId: string;
  positions: number[];
  ended?: ServiceError;
  done: Promise<void>;
}

function findAll(client: MatchmakerClient, ids: string[]): Waiter[] {
  return ids.map((ticketId) => {
    const w: Waiter = { ticketId, positions: [], done: Promise.resolve() };
    const call = client.findGame(findGameRequest({ ticketId, template: 'solo', party: [`p-${ticketId}`], partition: { region: 'eu' } }));
    call.on('data', (u: FindGameUpdate) => {
      if (u.update?.$case === 'queued') w.positions.push(u.update.value.position);
    });
    w.done = new Promise((resolve) => {
      call.on('error', (e: ServiceError) => {
        w.ended = e;
        resolve();
      });
      call.on('end', () => resolve());
    });
    return w;
  });
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 25));
};

/**
 * Issue 14, graceful drain with a real process: SIGTERM under load ends every waiting client with
 * UNAVAILABLE and a retry hint, the process exits 0 within its grace period, and a coordinator
 * restarted on the same data directory gives the retried tickets their original places, those
 * whose game creation was in flight included.
 */
describe('SIGTERM drains the coordinator process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory drain.test-'));
  writeFileSync(join(dir, 'factories.yaml'), YAML);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends waiting clients UNAVAILABLE, exits in time, and a restart keeps every place', { timeout: 120_000 }, async () => {
    const first = await startCli(dir);
    const address = `127.0.0.1:${first.port}`;
    // A server that takes two creations and never confirms them: two tickets in flight, the rest queued.
    const deaf = new GameServerConnection(address, { serverId: 'deaf', endpoint: 'deaf:1', maxGames: 2 }, { decide: () => 'ignore' });
    await deaf.connect();
    const client = new MatchmakerClient(address, credentials.createInsecure());
    const ids = Array.from({ length: TICKETS }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const waiters: Waiter[] = [];
    for (const id of ids) {
      waiters.push(...findAll(client, [id]));
      // One at a time, so arrival order is the ids' order.
      await until(() => deaf.orders.filter((o) => o.order?.$case === 'createGame').length >= Math.min(2, waiters.length) && (waiters.length <= 2 || waiters.at(-1)!.positions.length > 0));
    }
    const inFlight = deaf.orders.flatMap((o) => (o.order?.$case === 'createGame' ? o.order.value.seats.map((s) => s.playerId) : []));
    expect(inFlight).toEqual(['p-t00', 'p-t01']);

    const signalled = Date.now();
    first.child.kill('SIGTERM');
    await Promise.all(waiters.map((w) => w.done));
    for (const w of waiters) {
      expect(w.ended?.code, w.ticketId).toBe(status.UNAVAILABLE);
      expect(Number(w.ended?.metadata.get('retry-after-ms')[0])).toBeGreaterThan(0);
    }
    const exited = await first.exit;
    expect(exited.code).toBe(0);
    // The grace period bounds the drain; the margin is wide because the machine is shared.
    expect(exited.at - signalled).toBeLessThan(GRACE_MS + 10_000);
    client.close();
    deaf.close();

    // Restart on the same directory; clients retry in reverse order, before any server is back.
    const second = await startCli(dir);
    const address2 = `127.0.0.1:${second.port}`;
    const client2 = new MatchmakerClient(address2, credentials.createInsecure());
    const retried = findAll(client2, [...ids].reverse());
    await until(() => retried.every((w) => w.positions.length > 0));
    const deaf2 = new GameServerConnection(address2, { serverId: 'deaf', endpoint: 'deaf:1', maxGames: 2 }, { decide: () => 'ignore' });
    await deaf2.connect();
    await until(() => deaf2.orders.filter((o) => o.order?.$case === 'createGame').length >= 2);
    // The two whose creation was in flight at the drain come first again, then the rest in their original order.
    const creates = deaf2.orders.flatMap((o) => (o.order?.$case === 'createGame' ? o.order.value.seats.map((s) => s.playerId) : []));
    expect(creates).toEqual(['p-t00', 'p-t01']);
    await until(() => retried.filter((w) => !['t00', 't01'].includes(w.ticketId)).every((w) => (w.positions.at(-1) ?? 0) > 0));
    const order = retried
      .filter((w) => !['t00', 't01'].includes(w.ticketId))
      .sort((a, b) => a.positions.at(-1)! - b.positions.at(-1)!)
      .map((w) => w.ticketId);
    expect(order).toEqual(ids.slice(2));

    second.child.kill('SIGTERM');
    await Promise.all(retried.map((w) => w.done));
    expect((await second.exit).code).toBe(0);
    client2.close();
    deaf2.close();
  });
});
