import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireAttributes } from '@gamefactory/protocol';
import type { QueryStatsRequest, QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { findGameRequest } from '../support/find-game.js';
import { DIABLO_YAML, TestCoordinator, eventually } from './harness.js';

/**
 * QueryStats.waiting_tickets counts tickets (proto: "Tickets waiting in these factories (matching
 * or queued for a slot)"). It counted the creations queued for a slot instead: cooperative parties
 * that ride along in one creation (up to a game's size) were one "ticket" between them.
 */
describe('QueryStats waiting_tickets over gRPC', () => {
  let coordinator: TestCoordinator;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
    await coordinator.server({ serverId: 'full', attributes: { version: 'v201' }, maxGames: 0 });
  });
  afterAll(() => coordinator.stop());

  const partition = { difficulty: 'hard', hardcore: false, version: 'v201' };
  const stats = (request: Partial<QueryStatsRequest>) =>
    new Promise<QueryStatsResponse>((resolve, reject) =>
      coordinator.client().queryStats({ factory: '', template: 'diablo', partitionAttributes: {}, predicates: [], mode: 0, ...request }, (e, r) => (e ? reject(e) : resolve(r!))),
    );

  it('counts every ticket queued for a slot, not the games they wait to be created in', async () => {
    const client = coordinator.client();
    const calls = [
      // Three tickets for the same game (no matchable attributes: they ride along in one creation)...
      ...['a', 'b', 'c'].map((id) => findGameRequest({ ticketId: id, template: 'diablo', party: [id], partition })),
      // ...and one for another act: a creation of its own.
      findGameRequest({ ticketId: 'd', template: 'diablo', party: ['d'], partition, matchable: { act: 2 } }),
    ].map((request) => {
      const call = client.findGame(request);
      let queued = false;
      call.on('data', (u) => (queued ||= u.update?.$case === 'queued' && u.update.value.position > 0));
      call.on('error', () => {});
      return { call, queued: () => queued };
    });
    await eventually(() => calls.every((c) => c.queued()));

    const all = await stats({ partitionAttributes: wireAttributes({ version: 'v201' }) });
    expect(Number(all.waitingTickets)).toBe(4);
    const one = await stats({ factory: 'diablo/difficulty=hard/hardcore=false/version=v201', template: '' });
    expect(Number(one.waitingTickets)).toBe(4);

    // The operator page says the same (its board is sampled each second): 4 waiting, in a queue of 2 creations.
    const totals = async () => (await (await fetch(`http://127.0.0.1:${coordinator.running.metricsPort}/api/overview`)).json()).totals;
    let page = await totals();
    for (const deadline = Date.now() + 5000; page.factories === 0 && Date.now() < deadline; page = await totals()) await new Promise((r) => setTimeout(r, 100));
    expect(page).toMatchObject({ waitingTickets: 4, queueLength: 2 });

    calls[0]!.call.cancel();
    await eventually(() => coordinator.running.coordinator.view.ticket('a') === undefined);
    expect(Number((await stats({})).waitingTickets)).toBe(3);
    for (const c of calls) c.call.cancel();
  });
});
