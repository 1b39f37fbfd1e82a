import { describe, expect, it } from 'vitest';
import { QUEUED_UPDATE_MIN_INTERVAL_MS } from '../../src/placement/index.js';
import { setup, settle } from './fixture.js';

/**
 * What a ticket waiting for a game-server slot hears, on the core's manual clock: one slot, games
 * of a minute (the server ends them), 50 tickets in line.
 */
describe('queued updates while a line waits for slots', () => {
  async function line() {
    const core = setup(`
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 3600 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1, reservationMs: 5000 }
`);
    const server = core.connect('s1', 1);
    const tickets = Array.from({ length: 51 }, (_, i) => core.find(`t${i}`));
    await settle();
    let games = 0;
    /** The running game ends, the next creation is confirmed: the line moves by one. */
    const oneGame = async () => {
      const order = server.creates().at(-1)!;
      core.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: order.requestId, gameId: `g${++games}` });
      core.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: `g${games}` });
      await settle();
    };
    await oneGame();
    return { ...core, tickets, oneGame };
  }

  it('the head of a line that moves once a minute is told about a minute, and never ten', async () => {
    const { timers, tickets, oneGame } = await line();
    for (let minute = 0; minute < 10; minute++) {
      for (let s = 0; s < 60; s++) await timers.advance(1000);
      await oneGame();
    }
    // Past the first departures, every estimate any ticket heard, for its position, is within a
    // factor 3 of a minute a place (the line's real pace).
    const heard = tickets.flatMap((t) => t.listener.updates).filter((u) => u.kind === 'queued' && u.estimatedWaitMs !== undefined);
    expect(heard.length).toBeGreaterThan(0);
    for (const u of heard) {
      if (u.kind !== 'queued') continue;
      expect(u.estimatedWaitMs!).toBeGreaterThan((u.position * 60_000) / 3);
      expect(u.estimatedWaitMs!).toBeLessThan(u.position * 60_000 * 3);
    }
  });

  it('each ticket hears a new queued at most once every few seconds, and only when something changed', async () => {
    const { timers, tickets, oneGame } = await line();
    const counts = () => tickets.map((t) => t.listener.updates.filter((u) => u.kind === 'queued').length);
    const before = counts();
    // A minute of nothing leaving the line: looked at every second, told almost nothing.
    for (let s = 0; s < 60; s++) await timers.advance(1000);
    await oneGame();
    for (let s = 0; s < 60; s++) await timers.advance(1000);
    const told = counts().map((n, i) => n - before[i]!);
    expect(Math.max(...told)).toBeLessThanOrEqual(Math.ceil(120_000 / QUEUED_UPDATE_MIN_INTERVAL_MS));
    // 50 waiting tickets, 120 looks each: a few updates in all, not one a look.
    expect(told.reduce((a, b) => a + b, 0)).toBeLessThan(50 * 5);
    // Who moved up a place heard it.
    expect(tickets[2]!.listener.updates.at(-1)).toMatchObject({ kind: 'queued', position: 1 });
  });
});
