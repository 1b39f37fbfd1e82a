import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import { EventHub } from '../../src/coordinator/edges/events.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { CoordinatorMetrics } from '../../src/metrics/coordinator-metrics.js';
import { CoordinatorOperatorSource } from '../../src/operator-page/coordinator-adapter.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from '../coordinator/fixture.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
`;

describe('backfill requests in /metrics and on the operator page', () => {
  it('counts requests and how they ended, and shows open requests and their seats', async () => {
    const timers = new ManualTimers();
    const events = new EventHub(silentLog);
    const core = testCore(parseConfig(YAML), timers, { events });
    const metrics = new CoordinatorMetrics();
    metrics.attach(core.view, events);
    const page = new CoordinatorOperatorSource(core.view, events);
    const channel = new RecordingChannel();
    core.connectServer({ serverId: 's1', endpoint: 's1:1', attributes: new Map(), templates: [], capacity: { maxGames: 5, maxStartsPerSecond: 0 }, runningGames: [{ gameId: 'g1', factory: 'duel/region=eu', matchable: new Map(), playerIds: ['a', 'b'], open: true, startedAt: timers.now }] }, channel);
    core.onServerEvent('s1', { kind: 'playerLeft', gameId: 'g1', playerId: 'b' });
    const ask = (backfillId: string, score: number) =>
      core.onServerEvent('s1', { kind: 'requestBackfill', gameId: 'g1', request: { backfillId, players: [{ playerId: 'a', team: 0, score }], ttlMs: 0, map: '', region: '' } });
    ask('bf1', 1500);
    expect(page.snapshot(timers.now).factories[0]?.backfill).toEqual({ requests: 1, seats: 1, filled: 0 });
    let text = await metrics.registry.metrics();
    expect(text).toContain('gamefactory_backfill_open_requests 1');
    expect(text).toContain('gamefactory_backfill_requests_total{factory="duel/region=eu"} 1');
    const listener = new RecordingListener();
    core.find({ ticketId: 'n', template: 'duel', party: [{ playerId: 'n', score: 1520 }], partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]), matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] }, listener);
    await timers.advance(100);
    expect(listener.assignment?.gameId).toBe('g1');
    ask('bf2', 1500);
    core.onServerEvent('s1', { kind: 'cancelBackfill', gameId: 'g1', backfillId: 'bf2' });
    expect(page.snapshot(timers.now).factories[0]?.backfill).toEqual({ requests: 0, seats: 0, filled: 1 });
    text = await metrics.registry.metrics();
    expect(text).toContain('gamefactory_backfill_open_requests 0');
    expect(text).toContain('gamefactory_backfill_ended_total{factory="duel/region=eu",outcome="filled"} 1');
    expect(text).toContain('gamefactory_backfill_ended_total{factory="duel/region=eu",outcome="cancelled"} 1');
    expect(text).toContain('gamefactory_backfill_wait_seconds_count{factory="duel/region=eu"} 1');
  });
});
