import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { NodeProcess } from '../multi-node/node-process.js';
import { eventually } from '../integration/harness.js';

const ROOT = join(import.meta.dirname, '../..');
/** The `gamefactory` bin as package.json declares it: the compiled coordinator. */
const BIN = [join(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { gamefactory: string } }).bin.gamefactory)];
const OWNER = /this node now runs the matcher/;
const DIABLO = { difficulty: 'hard', hardcore: false, version: 'v201' };

/**
 * Adoption end to end: two compiled coordinators (the bin) sharing a Redis, a game server built
 * only on the SDK and players only on the client package. Node A, which holds the server's stream,
 * the matcher and a waiting ticket, is killed with SIGKILL: the server reconnects to B and
 * re-announces its running game, the ticket resumes on B, and nothing else is needed.
 */
describe('a studio on a 2-node cluster, with the packages only', () => {
  let redis: RedisServer | undefined;
  const nodes: NodeProcess[] = [];
  const closing: { close(): void }[] = [];

  beforeAll(async () => {
    if (!redisBinaryPresent()) return;
    redis = await RedisServer.start({ appendfsync: 'always' });
  }, 30_000);
  afterAll(async () => {
    for (const c of closing) c.close();
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.stop();
  });

  it('kill -9 of the node under a server and a waiting ticket: the server re-announces on B, the ticket resumes there', async (ctx) => {
    if (!redis) return ctx.skip('redis-server is not installed');
    const a = await NodeProcess.start(redis.url, {}, BIN);
    nodes.push(a);
    await a.waitFor(OWNER, 15_000);
    const b = await NodeProcess.start(redis.url, {}, BIN);
    nodes.push(b);
    const addresses = [a.address, b.address];

    const server = new GameServer({
      addresses,
      serverId: 'eu-1',
      endpoint: 'eu-1.example:7777',
      attributes: { version: 'v201' },
      capacity: { maxGames: 10 },
      reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
      createGame: () => {},
    });
    closing.push(server);
    const connectedTo: string[] = [];
    server.on('connected', ({ address }) => connectedTo.push(address));
    server.on('seatsReserved', ({ gameId, seats }) => seats.forEach((s) => void server.admit(gameId, s.playerId, s.token)));
    await server.start();
    expect(connectedTo).toEqual([a.address]);

    // A running cooperative game with one player, and a duel ticket waiting on A for an opponent.
    const players = new Matchmaker({ addresses, resume: { initialDelayMs: 100, maxDelayMs: 500 } });
    closing.push(players);
    const veteran = await players.find({ template: 'diablo', party: ['veteran'], partition: DIABLO }).assignment;
    await eventually(() => server.games.get(veteran.gameId)?.players.has('veteran') === true);
    // A client's first ticket goes to its first address, A (later ones take the nodes in turn).
    const waiter = new Matchmaker({ addresses, resume: { initialDelayMs: 100, maxDelayMs: 500 } });
    closing.push(waiter);
    const waiting = waiter.find({ ticketId: 'duel-waiting', template: 'duel', party: [{ playerId: 'waiter', score: 1500 }], partition: { version: 'v201' } });
    await new Promise<void>((resolve) => waiting.once('queued', () => resolve()));
    const resumedOn: string[] = [];
    waiting.on('resuming', (r) => resumedOn.push(r.address));

    a.signal('SIGKILL');
    await eventually(() => connectedTo.length === 2, 20_000);
    expect(connectedTo[1]).toBe(b.address);
    await eventually(() => resumedOn.length > 0, 20_000);
    expect(resumedOn).toContain(b.address);

    // The ticket waits on B now: an opponent arriving there completes its game.
    const onB = new Matchmaker({ addresses: [b.address] });
    closing.push(onB);
    const opponent = onB.find({ template: 'duel', party: [{ playerId: 'challenger', score: 1510 }], partition: { version: 'v201' } });
    const [mine, theirs] = await Promise.all([waiting.assignment, opponent.assignment]);
    expect(mine.gameId).toBe(theirs.gameId);
    expect(mine.serverId).toBe('eu-1');

    // The re-announced game is still known, with its player: a drop-in on B joins it.
    const dropIn = await onB.find({ template: 'diablo', party: ['newcomer'], partition: DIABLO }).assignment;
    expect(dropIn.gameId).toBe(veteran.gameId);
    expect(dropIn.created).toBe(false);
  }, 90_000);
});
