import { describe, expect, it } from 'vitest';
import { solveSlice, type SliceResult, type SliceSolver, type SliceTask } from '../../src/competitive/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { ManualTimers, RecordingChannel, RecordingListener, settle, testCore } from '../coordinator/fixture.js';

/** Holds slices until released, so the test decides what happens while a batch is out. */
class HeldSolver implements SliceSolver {
  private readonly held: (() => void)[] = [];
  batches = 0;
  solve(task: SliceTask): Promise<SliceResult> {
    if (this.held.length === 0) this.batches += 1;
    return new Promise((resolve) => this.held.push(() => resolve(solveSlice(task, () => 0))));
  }
  get out(): boolean {
    return this.held.length > 0;
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
}

const YAML = `
placement: { policy: fill, createTimeoutMs: 10000, ticketTtlSeconds: 120 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100000, intervalMs: 100 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 2 }
      hillClimbBudgetMs: 5
`;

function setup(solver: SliceSolver) {
  const timers = new ManualTimers();
  const config = parseConfig(YAML);
  const coordinator = testCore(config, timers, { workers: solver });
  const channel = new RecordingChannel();
  coordinator.connectServer(
    { serverId: 's1', endpoint: 's1:7777', attributes: new Map(), templates: [], capacity: { maxGames: 100_000, maxStartsPerSecond: 0 }, runningGames: [] },
    channel,
  );
  const find = (ticketId: string, score: number): RecordingListener => {
    const listener = new RecordingListener();
    const request: FindRequest = {
      ticketId,
      template: 'duel',
      party: [{ playerId: ticketId, score }],
      partition: new Map(),
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
    coordinator.find(request, listener);
    return listener;
  };
  return { coordinator, timers, channel, find };
}

describe('the competitive runtime with a slice solver', () => {
  it('batches a large pool on the solver, drops games of tickets cancelled meanwhile, then batches again', async () => {
    const solver = new HeldSolver();
    const { coordinator, timers, channel, find } = setup(solver);
    // 2048 tickets in pairs 1 apart, pairs 10 apart: t0+t1, t2+t3, ...
    for (let k = 0; k < 2048; k++) find(`t${k}`, Math.floor(k / 2) * 10 + (k % 2));
    await timers.advance(100);
    expect(solver.out).toBe(true);

    // While the batch is out: t0 cancels, a newcomer arrives, and no second batch starts.
    expect(coordinator.cancel('t0')).toBe(true);
    find('late', 0.5);
    await timers.advance(1_000);
    expect(solver.batches).toBe(1);
    expect(channel.creates()).toHaveLength(0);

    solver.release();
    await settle();
    expect(channel.creates()).toHaveLength(1023);
    expect(coordinator.view.ticket('t1')?.state).toBe('pooled');
    expect(coordinator.view.ticket('late')?.state).toBe('pooled');

    // The next batch, due since the late arrival, holds two tickets: under the worker threshold, it
    // runs in process and pairs them.
    await timers.advance(0);
    expect(solver.batches).toBe(1);
    expect(channel.creates()).toHaveLength(1024);
    expect([...(channel.creates().at(-1)?.playerIds ?? [])].sort()).toEqual(['late', 't1']);
  });
});
