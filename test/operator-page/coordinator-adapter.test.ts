import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import { DIABLO_YAML, TestCoordinator } from '../integration/harness.js';

interface ServerRow {
  serverId: string;
  health: string;
  maxGames: number;
  running: number;
  starting: number;
}

describe('the operator source over a real coordinator', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
  });
  afterEach(async () => {
    await coordinator.stop();
  });

  async function servers(): Promise<{ rows: ServerRow[]; unhealthy: number }> {
    const res = await fetch(`http://127.0.0.1:${coordinator.running.metricsPort}/api/overview`);
    const body = await res.json();
    return { rows: body.servers.rows, unhealthy: body.totals.unhealthyServers };
  }

  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (ok(value) || Date.now() > deadline) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('shows a server that keeps failing creations as backed off, still with the capacity it advertised', async () => {
    await coordinator.server({ serverId: 'flaky', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 10 }, { decide: () => 'fail' });
    const client = coordinator.client();
    const abort = new AbortController();
    const finds = Array.from({ length: 4 }, (_, i) =>
      findGame(client, { ticketId: `f${i}`, template: 'diablo', party: [`f${i}`], partition: { difficulty: 'hard', hardcore: false, version: 'v201' }, matchable: { quest: `q${i}` } }, abort.signal).catch(() => {}),
    );
    const seen = await until(servers, (s) => s.rows[0]?.health === 'backed-off');
    abort.abort();
    await Promise.all(finds);
    expect(seen.rows).toEqual([expect.objectContaining({ serverId: 'flaky', health: 'backed-off', maxGames: 10, running: 0 })]);
    expect(seen.unhealthy).toBe(1);
  });

  it('counts running games and forgets a server that disconnects', async () => {
    const s = await coordinator.server({ serverId: 'solid', attributes: { version: 'v201' }, templates: ['diablo'], maxGames: 3 });
    const client = coordinator.client();
    await Promise.all(
      Array.from({ length: 2 }, (_, i) =>
        findGame(client, { ticketId: `g${i}`, template: 'diablo', party: [`g${i}`], partition: { difficulty: 'hard', hardcore: false, version: 'v201' }, matchable: { quest: `q${i}` } }),
      ),
    );
    const running = await until(servers, (v) => v.rows[0]?.running === 2);
    expect(running.rows).toEqual([expect.objectContaining({ serverId: 'solid', health: 'ok', running: 2, starting: 0, maxGames: 3 })]);
    s.close();
    const gone = await until(servers, (v) => v.rows.length === 0);
    expect(gone.rows).toEqual([]);
  });
});
