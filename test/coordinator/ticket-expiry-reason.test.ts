import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from './fixture.js';

const YAML = `
placement: { ticketTtlSeconds: 5 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      expansion: [{ afterSeconds: 0, maxScoreGap: 10 }]
  - name: coop
    cooperative: { maxPlayers: 2 }
`;

const request = (ticketId: string, template: string): FindRequest => ({
  ticketId,
  template,
  party: [{ playerId: `p-${ticketId}`, score: 1500 }],
  partition: new Map(),
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

/** A ticket that runs out of time says its time to live, how long it waited, and what it was waiting for. */
describe('a ticket past its time to live', () => {
  it('names placement.ticketTtlSeconds and why it was still waiting', async () => {
    const timers = new ManualTimers();
    const host = testCore(parseConfig(YAML), timers);
    // No free slot: a cooperative ticket waits in line for one.
    host.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 0, maxStartsPerSecond: 0 }, runningGames: [] }, new RecordingChannel());
    const lonely = new RecordingListener();
    const queued = new RecordingListener();
    host.find(request('lonely', 'duel'), lonely);
    host.find(request('queued', 'coop'), queued);
    await timers.advance(6000);
    expect(lonely.error?.code).toBe('DEADLINE_EXCEEDED');
    expect(lonely.error?.message).toMatch(/^ticket "lonely" was not assigned within its time to live \(placement\.ticketTtlSeconds: 5; waited 5\.\d s\): no match was found for it in duel$/);
    expect(queued.error?.message).toMatch(/\(placement\.ticketTtlSeconds: 5; waited 5\.\d s\): its game in coop was still in line \(position 1\) for a free slot on a game server$/);
  });
});
