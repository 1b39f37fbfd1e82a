import { describe, expect, it } from 'vitest';
import { solveSlice, type SliceResult, type SliceSolver, type SliceTask } from '../../src/competitive/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from '../coordinator/fixture.js';

/**
 * A reload is an input of the core like any other: applied whole (waiting tickets keep their
 * place and meet the new rules, connected servers take on new factories) or refused whole.
 */
const DUEL = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100, ticketTtlSeconds: 120 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
`;
/** Windows that widen after a second of waiting. */
const WIDER = DUEL.replace('[{ afterSeconds: 0, maxScoreGap: 100 }]', '[{ afterSeconds: 0, maxScoreGap: 100 }, { afterSeconds: 1, maxScoreGap: 1000 }]');
const WITH_COOP = `${DUEL}  - name: coop
    partitioning: { mode: [story] }
    cooperative: { maxPlayers: 2 }
`;

function duelRequest(ticketId: string, score: number, extra: Partial<FindRequest> = {}): FindRequest {
  return {
    ticketId,
    template: 'duel',
    party: [{ playerId: `p-${ticketId}`, score }],
    partition: new Map(),
    matchable: new Map(),
    latenciesMs: new Map(),
    preferredMaps: [],
    vetoedMaps: [],
    ...extra,
  };
}

/** Worker threads that hold every slice until released. */
class HeldSolver implements SliceSolver {
  private readonly held: (() => void)[] = [];
  solve(task: SliceTask): Promise<SliceResult> {
    return new Promise((resolve) => this.held.push(() => resolve(solveSlice(task, () => 0))));
  }
  get out(): boolean {
    return this.held.length > 0;
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
}

function started(yaml = DUEL, workers?: SliceSolver) {
  const timers = new ManualTimers();
  const host = testCore(parseConfig(yaml), timers, workers ? { workers } : {});
  const channel = new RecordingChannel();
  host.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 100, maxStartsPerSecond: 0 }, runningGames: [] }, channel);
  return { timers, host, channel };
}

describe('CoordinatorCore.reload', () => {
  it("a competitive factory's wider expansion pairs the tickets that were waiting, with their waits kept", async () => {
    const { timers, host, channel } = started();
    host.find(duelRequest('a', 1000), new RecordingListener());
    host.find(duelRequest('b', 1500), new RecordingListener());
    await timers.advance(2000);
    expect(channel.creates()).toHaveLength(0);
    expect(host.view.snapshot().ticketsByState.pooled).toBe(2);

    const outcome = host.reload(parseConfig(WIDER));
    expect(outcome).toEqual({ changes: ['template "duel": competitive.expansion changed'] });
    await timers.advance(300);
    // They had waited 2 s: the new second step is theirs at the next batch.
    expect(channel.creates().map((c) => [...c.playerIds].sort())).toEqual([['p-a', 'p-b']]);
    expect(host.view.snapshot().ticketsByState).toMatchObject({ pooled: 0, placing: 2 });
    // Newcomers start at the new first step and widen a second later.
    host.find(duelRequest('c', 1000), new RecordingListener());
    host.find(duelRequest('d', 1500), new RecordingListener());
    await timers.advance(500);
    expect(channel.creates()).toHaveLength(1);
    await timers.advance(1000);
    expect(channel.creates().map((c) => [...c.playerIds].sort())[1]).toEqual(['p-c', 'p-d']);
  });

  it('a batch out on the workers when the settings change is forgotten: its tickets are matched under the new settings, each once', async () => {
    const solver = new HeldSolver();
    const { timers, host, channel } = started(DUEL.replace('maxTickets: 100', 'maxTickets: 100000'), solver);
    // 2048 tickets (enough to go to the workers) in pairs 500 apart: nothing pairs under a 100-point window.
    for (let k = 0; k < 2048; k++) host.find(duelRequest(`t${k}`, k * 500), new RecordingListener());
    await timers.advance(300);
    expect(solver.out).toBe(true);
    host.reload(parseConfig(WIDER.replace('maxTickets: 100', 'maxTickets: 100000').replace('maxScoreGap: 1000', 'maxScoreGap: 600')));
    // The old batch's answer comes back and is ignored; the new matcher's batches widen after a second.
    for (let round = 0; round < 4 && host.view.snapshot().ticketsByState.pooled > 0; round++) {
      solver.release();
      await timers.advance(1_000);
    }
    // Every ticket is in one game: 100 created (the server's slots), the rest queued for a slot.
    expect(host.view.snapshot().ticketsByState).toMatchObject({ pooled: 0, placing: 2048 });
    const seated = channel.creates().flatMap((c) => c.playerIds);
    expect(seated).toHaveLength(200);
    expect(new Set(seated).size).toBe(200);
  });

  it('an added template is served at once by a connected server that offers every template', async () => {
    const { timers, host, channel } = started();
    expect(() => host.find({ ...duelRequest('c', 0), template: 'coop', party: [{ playerId: 'pc', score: undefined }] }, new RecordingListener())).toThrow(
      /template: "coop" is not in the configuration/,
    );
    expect(host.reload(parseConfig(WITH_COOP))).toEqual({ changes: ['template "coop" added'] });
    expect(host.view.factoryNames().sort()).toEqual(['coop/mode=story', 'duel']);
    const coop = { ...duelRequest('c', 0), template: 'coop', party: [{ playerId: 'pc', score: undefined }], partition: new Map([['mode', 's:story']]) };
    host.find(coop as FindRequest, new RecordingListener());
    await timers.advance(10);
    expect(channel.creates().map((c) => c.factory)).toEqual(['coop/mode=story']);
  });

  it('a reload that cannot apply changes nothing: the old settings keep running and every reason is given', async () => {
    const { timers, host, channel } = started();
    host.find(duelRequest('a', 1000), new RecordingListener());
    const refused = host.reload(parseConfig(WIDER.replace('teamSize: 1', 'teamSize: 2') + '  - name: extra\n    cooperative: { maxPlayers: 2 }\n'));
    expect('refused' in refused && refused.refused).toEqual([expect.stringMatching(/^factories\[duel\]\.competitive\.teamSize: cannot change while 1 of its factories is live/)]);
    // The wider expansion did not apply, and the template that came with it does not exist.
    host.find(duelRequest('b', 1500), new RecordingListener());
    await timers.advance(2000);
    expect(channel.creates()).toHaveLength(0);
    expect(host.view.factoryNames()).toEqual(['duel']);
  });

  it('refuses new player limits that a waiting ticket would not fit, naming the ticket', () => {
    const limits = (min: number) => `      playerLimits: { waitBudgetMs: { min: ${min}, max: 60000 } }\n`;
    const { host } = started(DUEL + limits(1000));
    host.find(duelRequest('a', 1000, { waitBudgetMs: 2000 }), new RecordingListener());
    const refused = host.reload(parseConfig(DUEL + limits(5000)));
    expect('refused' in refused && refused.refused).toEqual([
      "factories[duel]: duel: waiting ticket \"a\" would not fit: wait_budget_ms: 2000 is outside this factory's bounds 5000..60000",
    ]);
    expect(host.reload(parseConfig(DUEL + limits(1500)))).toEqual({ changes: ['template "duel": competitive.playerLimits changed'] });
  });

  it('a new ticket time to live applies to tickets from now on', async () => {
    const { timers, host } = started();
    const early = new RecordingListener();
    host.find(duelRequest('a', 0), early);
    host.reload(parseConfig(DUEL.replace('ticketTtlSeconds: 120', 'ticketTtlSeconds: 10')));
    const late = new RecordingListener();
    host.find(duelRequest('b', 5000), late);
    await timers.advance(11_000);
    expect(late.error?.code).toBe('DEADLINE_EXCEEDED');
    expect(early.error).toBeUndefined();
    await timers.advance(110_000);
    expect(early.error?.code).toBe('DEADLINE_EXCEEDED');
  });
});
