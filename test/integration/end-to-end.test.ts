import { status, type ServiceError } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import { wireAttributes, wireValue } from '@gamefactory/protocol';
import { PredicateMode, type QueryStatsRequest, type QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { DIABLO_YAML, TestCoordinator, eventually } from './harness.js';

describe('the coordinator end to end over gRPC on loopback', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
  });
  afterEach(async () => {
    await coordinator.stop();
  });

  it('assigns hundreds of FindGame calls across factories to servers that can host them, never over capacity', async () => {
    const v201 = await coordinator.server({ serverId: 'eu-v201', attributes: { version: 'v201' }, maxGames: 200 });
    const v202 = await coordinator.server({ serverId: 'eu-v202', attributes: { version: 'v202' }, maxGames: 200 });
    const hardOnly = await coordinator.server({ serverId: 'hard-any', attributes: { difficulty: 'hard' }, templates: ['diablo'], maxGames: 200 });
    const byId = new Map([v201, v202, hardOnly].map((s) => [s.identity.serverId, s]));
    const client = coordinator.client();

    const difficulties = ['normal', 'hard'];
    const requests = Array.from({ length: 300 }, (_, i) => ({
      ticketId: `t${i}`,
      template: 'diablo',
      party: i % 5 === 0 ? [`p${i}a`, `p${i}b`] : [`p${i}`],
      partition: { difficulty: difficulties[i % 2]!, hardcore: i % 3 === 0, version: i % 4 < 2 ? 'v201' : 'v202' },
      matchable: { act: (i % 3) + 1 },
    }));
    const results = await Promise.all(requests.map((r) => findGame(client, r)));

    const seatsPerGame = new Map<string, number>();
    results.forEach(({ assignment }, i) => {
      const request = requests[i]!;
      const server = byId.get(assignment.serverId)!;
      expect(server, `ticket ${request.ticketId}`).toBeDefined();
      expect(assignment.serverEndpoint).toBe(server.identity.endpoint);
      expect(assignment.factory).toBe(
        `diablo/difficulty=${request.partition.difficulty}/hardcore=${request.partition.hardcore}/version=${request.partition.version}`,
      );
      // The server could host the partition: its attributes agree with the request's.
      for (const [key, value] of Object.entries(server.identity.attributes ?? {})) {
        expect((request.partition as Record<string, unknown>)[key]).toBe(value);
      }
      expect(server.games.get(assignment.gameId)?.factory).toBe(assignment.factory);
      seatsPerGame.set(assignment.gameId, (seatsPerGame.get(assignment.gameId) ?? 0) + request.party.length);
    });
    for (const [gameId, seats] of seatsPerGame) expect(seats, gameId).toBeLessThanOrEqual(4);
    // Filling: far fewer games than tickets.
    expect(seatsPerGame.size).toBeLessThan(requests.length / 2);
    // A player is never in two games.
    const seen = new Set<string>();
    for (const server of byId.values()) {
      for (const game of server.games.values()) {
        for (const p of game.players) {
          expect(seen.has(p), p).toBe(false);
          seen.add(p);
        }
      }
    }
  });

  it("removes a disconnected server's games and drains factories no server serves", async () => {
    const a = await coordinator.server({ serverId: 'a', attributes: { version: 'v201' } });
    const client = coordinator.client();
    const partition = { difficulty: 'hard', hardcore: false, version: 'v201' };
    const { assignment } = await findGame(client, { ticketId: 'x1', template: 'diablo', party: ['x1'], partition });
    expect(assignment.serverId).toBe('a');
    const core = coordinator.running.coordinator;
    expect(core.view.snapshot().games).toBe(1);
    expect(core.view.factoryNames()).toContain(assignment.factory);

    a.close();
    await eventually(() => core.view.snapshot().servers === 0);
    expect(core.view.snapshot().games).toBe(0);
    expect(core.view.factoryNames()).toHaveLength(0);

    const error = await findGame(client, { ticketId: 'x2', template: 'diablo', party: ['x2'], partition }).catch((e: ServiceError) => e);
    expect((error as ServiceError).code).toBe(status.FAILED_PRECONDITION);
    expect((error as ServiceError).details).toContain('diablo/difficulty=hard/hardcore=false/version=v201');
  });

  it('drops a server that stops answering keepalives', async () => {
    await coordinator.server({ serverId: 'mute', attributes: { version: 'v201' } }, { autoJoin: true, answerKeepalive: false });
    const core = coordinator.running.coordinator;
    expect(core.view.snapshot().servers).toBe(1);
    // Three missed keepalives at 1 s each, plus slack for a busy machine.
    await eventually(() => core.view.snapshot().servers === 0, 10_000);
  });

  it('ends the older stream when a server reconnects with the same id, and rebuilds from re-announced games', async () => {
    const first = await coordinator.server({ serverId: 'same', attributes: { version: 'v201' } });
    const second = await coordinator.server({
      serverId: 'same',
      attributes: { version: 'v201' },
      runningGames: [
        {
          gameId: 'old-game',
          factory: 'diablo/difficulty=hard/hardcore=false/version=v201',
          playerIds: ['veteran'],
          open: true,
          startedAt: Date.now() - 60_000,
        },
      ],
    });
    const ended = await first.whenEnded();
    expect(ended?.code).toBe(status.ABORTED);
    expect(ended?.details).toContain('replaced');
    const { assignment } = await findGame(coordinator.client(), {
      ticketId: 'joiner',
      template: 'diablo',
      party: ['joiner'],
      partition: { difficulty: 'hard', hardcore: false, version: 'v201' },
    });
    expect(assignment.gameId).toBe('old-game');
    expect(assignment.created).toBe(false);
    expect(second.ended).toBeUndefined();
  });

  it('answers QueryStats over every factory matching some partitioning attributes', async () => {
    const game = (gameId: string, factory: string, act: number, players: string[], ageMs: number) => ({
      gameId,
      factory,
      matchable: { act },
      playerIds: players,
      open: true,
      startedAt: Date.now() - ageMs,
    });
    await coordinator.server({
      serverId: 'stats',
      attributes: { version: 'v201' },
      runningGames: [
        game('n1', 'diablo/difficulty=normal/hardcore=false/version=v201', 1, ['a'], 60_000),
        game('h1', 'diablo/difficulty=hard/hardcore=false/version=v201', 1, ['b', 'c'], 30_000),
        game('h2', 'diablo/difficulty=hard/hardcore=false/version=v201', 2, ['d', 'e', 'f'], 10_000),
        game('x1', 'diablo/difficulty=hard/hardcore=true/version=v201', 1, ['g'], 5_000),
      ],
    });
    const client = coordinator.client();
    const query = (request: Partial<QueryStatsRequest>) =>
      new Promise<QueryStatsResponse>((resolve, reject) =>
        client.queryStats(
          { factory: '', template: 'diablo', partitionAttributes: {}, predicates: [], mode: 0, ...request },
          (err, res) => (err ? reject(err) : resolve(res!)),
        ),
      );
    const notHardcore = await query({ partitionAttributes: wireAttributes({ hardcore: false }) });
    expect(notHardcore.factories).toBe(2);
    expect(Number(notHardcore.games)).toBe(3);
    expect(Number(notHardcore.players)).toBe(6);
    expect(Number(notHardcore.openSlots)).toBe(3 + 2 + 1);
    expect(notHardcore.openGamesByOpenSlots.map(Number)).toEqual([1, 1, 1, 0]);
    expect(Number(notHardcore.maxDurationMs)).toBeGreaterThanOrEqual(60_000);
    const act1 = await query({ predicates: [{ key: 'act', value: wireValue(1) }], mode: PredicateMode.PREDICATE_MODE_MATCH_ALL });
    expect(Number(act1.games)).toBe(3);
    const notAct1 = await query({ predicates: [{ key: 'act', value: wireValue(1) }], mode: PredicateMode.PREDICATE_MODE_MATCH_NONE });
    expect(Number(notAct1.games)).toBe(1);
    const unknown = await query({ predicates: [{ key: 'color', value: wireValue('red') }] }).catch((e: ServiceError) => e);
    expect((unknown as ServiceError).code).toBe(status.INVALID_ARGUMENT);
  });
});
