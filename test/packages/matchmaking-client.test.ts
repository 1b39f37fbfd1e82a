import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GameServer } from '@gamefactory/game-server-sdk';
import { FindError, Matchmaker, status, type MatchmakerOptions, type TicketUpdate } from '@gamefactory/matchmaking-client';
import { TestCoordinator, eventually } from '../integration/harness.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;
const EU = { region: 'eu' };

/** @gamefactory/matchmaking-client against a real coordinator on loopback, both ways of carrying tickets. */
describe.each([
  ['a FindGame call per ticket', { multiplex: false }],
  ['one batched FindGames stream', { multiplex: true, batch: true }],
] as const)('matchmaking client, %s', (_name, mode: Partial<MatchmakerOptions>) => {
  let coordinator: TestCoordinator;
  let server: GameServer;
  const opened: { close(): void }[] = [];
  const matchmaker = () => {
    const m = new Matchmaker({ addresses: coordinator.address, resume: { initialDelayMs: 50, maxDelayMs: 200 }, ...mode });
    opened.push(m);
    return m;
  };
  /** A server with `maxGames` slots whose games never end: later tickets queue for a slot. */
  const startServer = async (maxGames: number) => {
    server = new GameServer({ addresses: coordinator.address, serverId: 'eu-1', endpoint: 'eu-1:7777', attributes: EU, capacity: { maxGames }, reconnect: { initialDelayMs: 50, maxDelayMs: 200 }, createGame: () => {} });
    opened.push(server);
    await server.start();
  };

  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
  });
  afterEach(async () => {
    for (const o of opened.splice(0)) o.close();
    await coordinator.stop();
  });

  it('streams a queued ticket\'s place, then its assignment, to an iterator and to events alike', async () => {
    await startServer(1);
    const mm = matchmaker();
    const first = await mm.find({ party: ['p1'], partition: EU }).assignment;
    const ticket = mm.find({ ticketId: 'second', party: ['p2'], partition: EU });
    const events: string[] = [];
    ticket.on('queued', (q) => events.push(`queued ${q.position}`));
    ticket.on('assignment', (a) => events.push(`assigned ${a.gameId}`));
    await eventually(() => events.includes('queued 1'));
    server.endGame(first.gameId);
    const seen: TicketUpdate[] = [];
    for await (const update of ticket) seen.push(update);
    expect(seen.map((u) => u.kind)).toContain('queued');
    expect(seen.at(-1)).toMatchObject({ kind: 'assignment', assignment: { serverId: 'eu-1', created: true } });
    expect(events.at(-1)).toMatch(/^assigned /);
    expect(ticket.id).toBe('second');
  }, 20_000);

  it('many tickets at once are all assigned', async () => {
    await startServer(100);
    const mm = matchmaker();
    const assignments = await Promise.all(Array.from({ length: 60 }, (_, i) => mm.find({ party: [`many-${i}`], partition: EU }).assignment));
    expect(new Set(assignments.map((a) => a.gameId)).size).toBe(60);
  }, 20_000);

  it('cancel withdraws a waiting ticket; a deadline (AbortSignal.timeout) ends one with DEADLINE_EXCEEDED', async () => {
    await startServer(1);
    const mm = matchmaker();
    await mm.find({ party: ['holder'], partition: EU }).assignment;
    const waiting = mm.find({ party: ['patient'], partition: EU });
    await new Promise<void>((resolve) => waiting.once('queued', () => resolve()));
    expect(await waiting.cancel()).toBe(true);
    await expect(waiting.assignment).rejects.toMatchObject({ code: status.CANCELLED });

    const hurried = mm.find({ party: ['hurried'], partition: EU }, { signal: AbortSignal.timeout(300) });
    await expect(hurried.assignment).rejects.toMatchObject({ code: status.DEADLINE_EXCEEDED });
    // Withdrawn on the coordinator too: the player may look again at once.
    const again = mm.find({ party: ['hurried'], partition: EU });
    await new Promise<void>((resolve) => again.once('queued', () => resolve()));
    expect(await again.cancel()).toBe(true);
  }, 20_000);

  it('a coordinator\'s refusal is a FindError with its code and message', async () => {
    const error = await matchmaker().find({ party: ['nobody-serves'], partition: EU }).assignment.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FindError);
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION });
    expect((error as FindError).details).toContain('solo/region=eu');
  }, 20_000);

  it('resumes by ticket id when its node drains (UNAVAILABLE) and gets its assignment from the next one', async () => {
    await startServer(1);
    const mm = matchmaker();
    const first = await mm.find({ party: ['p1'], partition: EU }).assignment;
    const ticket = mm.find({ ticketId: 'survivor', party: ['p2'], partition: EU });
    const resumes: string[] = [];
    ticket.on('resuming', (r) => resumes.push(r.reason));
    await new Promise<void>((resolve) => ticket.once('queued', () => resolve()));
    await coordinator.restart('drain');
    await eventually(() => resumes.length > 0, 10_000);
    await eventually(() => server.connected, 10_000);
    server.endGame(first.gameId);
    const assignment = await ticket.assignment;
    expect(assignment.serverId).toBe('eu-1');
    expect(ticket.settled).toBe(true);
  }, 30_000);
});
