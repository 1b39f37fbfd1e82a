import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_STORE_IN_FLIGHT_AFTER_MS } from '../../src/config/config.js';
import { describe, expect, it } from 'vitest';
import { MatchmakingError } from '../../src/errors/index.js';
import type { Principal } from '../../src/security/tokens/principal.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { RecordingListener, settle, setup } from './fixture.js';

const alice: Principal = { role: 'player', subject: 'alice', playerIds: ['alice'] };
const mallory: Principal = { role: 'player', subject: 'mallory', playerIds: ['mallory'] };
const gateway: Principal = { role: 'gateway', subject: 'gw' };

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'OK';
  } catch (error) {
    return (error as MatchmakingError).code;
  }
};

/** Issue 14: a ticket's owner is recorded when it opens, stored with it, and checked on cancel and resume. */
describe('ticket ownership in the core', () => {
  it('only the owner (or a gateway) cancels or resumes a ticket', async () => {
    const { coordinator, connect, find } = setup();
    connect('s1', 0); // no slot: the ticket waits
    const { request } = find('t1', ['alice']);
    await settle();
    // The fixture's find has no caller: open again as alice's own ticket.
    coordinator.cancel('t1');
    coordinator.find({ ...request, ticketId: 't2', caller: alice }, new RecordingListener());
    await settle();
    expect(codeOf(() => coordinator.cancel('t2', mallory))).toBe('PERMISSION_DENIED');
    expect(codeOf(() => coordinator.find({ ...request, ticketId: 't2', caller: mallory }, new RecordingListener()))).toBe('PERMISSION_DENIED');
    expect(coordinator.view.ticket('t2')).toBeDefined();
    expect(codeOf(() => coordinator.find({ ...request, ticketId: 't2', caller: alice }, new RecordingListener()))).toBe('OK');
    expect(coordinator.cancel('t2', gateway)).toBe(true);
  });

  it('stores the owner with the ticket in LMDB and checks it when a restarted coordinator resumes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-owner-'));
    try {
      let store = LmdbStore.open(dir);
      const first = setup(undefined, [], store.tickets as never);
      first.connect('s1', 0);
      const { request } = first.find('seed', ['nobody']);
      first.coordinator.find({ ...request, ticketId: 'owned', party: [{ playerId: 'alice', score: undefined }], caller: alice }, new RecordingListener());
      await settle();
      await store.tickets.flushed();
      const records = store.tickets.loadAll();
      expect(records.find((r) => r.request.ticketId === 'owned')?.owner).toEqual({ subject: 'alice', role: 'player', partyPlayerIds: ['alice'] });
      await store.close();

      store = LmdbStore.open(dir);
      const second = setup(undefined, store.tickets.loadAll(), store.tickets as never);
      const retry = { ...request, ticketId: 'owned', party: [{ playerId: 'alice', score: undefined }] };
      expect(codeOf(() => second.coordinator.find({ ...retry, caller: mallory }, new RecordingListener()))).toBe('PERMISSION_DENIED');
      expect(codeOf(() => second.coordinator.find({ ...retry, caller: alice }, new RecordingListener()))).toBe('OK');
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores a ticket whose game creation goes unconfirmed for storeInFlightAfterMs with where it went, and forgets it once the game is confirmed', async () => {
    const { connect, find, store, timers } = setup();
    const deaf = connect('deaf', 5);
    find('placing');
    await settle();
    const [order] = deaf.creates(); // sent, not confirmed yet
    expect(store.records.has('placing')).toBe(false);
    await timers.advance(DEFAULT_STORE_IN_FLIGHT_AFTER_MS);
    expect(store.records.get('placing')?.placed).toMatchObject({ requestId: order!.requestId, serverId: 'deaf', token: order!.reservationToken, at: 1_000_000 });

    const live = setup();
    const server = live.connect('s1', 5);
    live.find('t');
    await settle();
    await live.timers.advance(DEFAULT_STORE_IN_FLIGHT_AFTER_MS);
    expect(live.store.records.has('t')).toBe(true);
    live.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: server.creates()[0]!.requestId, gameId: 'g' });
    expect(live.store.records.has('t')).toBe(false);
  });

  it('never writes a ticket whose game is confirmed sooner, and stores one still in flight when the process drains', async () => {
    const writes: string[] = [];
    const quick = setup();
    const save = quick.store.save.bind(quick.store);
    quick.store.save = (record) => (writes.push(record.request.ticketId), save(record));
    const server = quick.connect('s1', 5);
    quick.find('t');
    await settle();
    await quick.timers.advance(DEFAULT_STORE_IN_FLIGHT_AFTER_MS - 1);
    quick.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: server.creates()[0]!.requestId, gameId: 'g' });
    await quick.timers.advance(DEFAULT_STORE_IN_FLIGHT_AFTER_MS);
    expect(writes).toEqual([]);

    const draining = setup();
    const deaf = draining.connect('deaf', 5);
    draining.find('placing');
    await settle();
    draining.coordinator.beginShutdown();
    expect(draining.store.records.get('placing')?.placed).toMatchObject({ requestId: deaf.creates()[0]!.requestId, serverId: 'deaf' });
  });
});
