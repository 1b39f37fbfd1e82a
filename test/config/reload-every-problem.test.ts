import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from '../coordinator/fixture.js';

const RUNNING = `
placement: { policy: fill }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      regions: [us-east]
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
  - name: coop
    partitioning: { mode: [story, hardcore] }
    cooperative: { maxPlayers: 4, order: fill }
`;

const request = (ticketId: string, template: string, extra: Partial<FindRequest> = {}): FindRequest => ({
  ticketId,
  template,
  party: [{ playerId: `p-${ticketId}`, score: 1500 }],
  partition: new Map(),
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
  ...extra,
});

/**
 * docs/configuration.md promises a refused reload "one line per setting": an operator fixes the
 * file once, not once per reload.
 */
describe('a refused reload names every problem at once', () => {
  it('restart-only settings, each changed cooperative setting, a dropped value and a waiting ticket that would not fit: one line each', () => {
    const timers = new ManualTimers();
    const host = testCore(parseConfig(RUNNING), timers);
    host.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [] }, new RecordingChannel());
    host.find(request('lonely', 'duel', { latenciesMs: new Map([['us-east', 30]]) }), new RecordingListener());
    expect(host.view.snapshot().ticketsByState.pooled).toBe(1);

    const next = RUNNING.replace('policy: fill', 'policy: spread')
      .replace('regions: [us-east]', 'regions: [eu-west]')
      .replace('maxPlayers: 4, order: fill', 'maxPlayers: 6, order: spread')
      .replace('mode: [story, hardcore]', 'mode: [casual]');
    const outcome = host.reload(parseConfig(next));
    expect('refused' in outcome).toBe(true);
    const refused = 'refused' in outcome ? outcome.refused : [];
    expect(refused).toContain("placement.policy: cannot change live (the slot ledger's order is built on it); restart to change it");
    expect(refused.filter((p) => p.startsWith('factories[coop].cooperative.maxPlayers: cannot change while'))).toHaveLength(1);
    expect(refused.filter((p) => p.startsWith('factories[coop].cooperative.order: cannot change while'))).toHaveLength(1);
    expect(refused.filter((p) => p.startsWith('factories[coop].partitioning.mode: cannot drop "story", "hardcore" while 2 of its factories'))).toHaveLength(1);
    expect(refused).toContain('factories[duel]: duel: waiting ticket "lonely" would not fit: latencies_ms[us-east]: unknown region');
    expect(refused).toHaveLength(5);
  });
});
