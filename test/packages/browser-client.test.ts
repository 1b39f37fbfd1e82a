import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FindError, Matchmaker, status, type TicketUpdate } from '../../packages/matchmaking-client/src/browser/index.js';
import { TestCoordinator } from '../integration/harness.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 10, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 200 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;

/**
 * The client's browser entry (fetch and Connect) run in Node, whose fetch is a browser's: the
 * Node entry's API over a coordinator's HTTP gateway. The example page's test drives it in Chromium.
 */
describe('the matchmaking client\'s browser entry over the HTTP gateway', () => {
  let coordinator: TestCoordinator;
  let url: string;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(YAML, undefined, { httpListen: '127.0.0.1:0' });
    url = `http://127.0.0.1:${coordinator.running.httpPort}`;
  });
  afterAll(async () => {
    await coordinator?.stop();
  });

  it('iterates a ticket\'s place in the queue, then its assignment; resumes past a node it cannot reach', async () => {
    const server = await coordinator.server({ serverId: 'b1', maxGames: 0, attributes: { region: 'eu' } });
    // The first node refuses connections: the ticket resumes on the next, by its id.
    const matchmaker = new Matchmaker({ addresses: ['http://127.0.0.1:9', url], resume: { initialDelayMs: 10 } });
    const ticket = matchmaker.find({ ticketId: 'browser-1', template: 'solo', party: ['ann'], partition: { region: 'eu' } });
    const updates: TicketUpdate[] = [];
    const queued = new Promise<void>((resolve) => ticket.once('queued', () => resolve()));
    const read = (async () => {
      for await (const update of ticket) updates.push(update);
    })();
    await queued;
    server.setCapacity(1);
    await read;
    expect(updates.map((u) => u.kind)).toEqual(['resuming', 'queued', 'assignment']);
    expect(updates[1]).toMatchObject({ kind: 'queued', factory: 'solo/region=eu', position: 1 });
    expect((await ticket.assignment).serverEndpoint).toBe('b1.example:7777');
    server.close();
  });

  it('a refusal is a FindError with the coordinator\'s code and message; AbortSignal.timeout ends a ticket DEADLINE_EXCEEDED; cancel by id', async () => {
    const server = await coordinator.server({ serverId: 'b2', maxGames: 0, attributes: { region: 'eu' } });
    const matchmaker = new Matchmaker({ addresses: url });
    const refused = await matchmaker.find({ template: 'nope', party: ['bo'] }).assignment.catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FindError);
    expect(refused).toMatchObject({ code: status.NOT_FOUND, details: 'template: "nope" is not in the configuration (known: solo)' });

    const late = await matchmaker.find({ template: 'solo', party: ['cy'], partition: { region: 'eu' } }, { signal: AbortSignal.timeout(300) }).assignment.catch((e: unknown) => e);
    expect(late).toMatchObject({ code: status.DEADLINE_EXCEEDED });

    const waiting = matchmaker.find({ ticketId: 'browser-2', template: 'solo', party: ['di'], partition: { region: 'eu' } });
    await new Promise<void>((resolve) => waiting.once('queued', () => resolve()));
    expect(await new Matchmaker({ addresses: url }).cancel('browser-2')).toBe(true);
    expect(await waiting.assignment.catch((e: unknown) => e)).toMatchObject({ code: status.CANCELLED });
    server.close();
  });
});
