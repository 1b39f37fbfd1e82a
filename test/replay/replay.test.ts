import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ArrivalLogError, parseArrivalLog, serializeArrivalLog, type ArrivalEvent } from '../../src/replay/arrival-log.js';
import { recordedRun, replayArrivals } from '../../src/replay/replay.js';
import { replayTable } from '../../src/replay/replay-report.js';
import { exportArrivals } from '../../src/simulation/arrival-export.js';
import { parseScenario } from '../../src/simulation/scenario.js';

const DUEL = (competitive: string) =>
  parseConfig(`
factories:
  - name: duel
    partitioning: { version: [v1] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 100 }
${competitive}
  - name: coop
    cooperative: { maxPlayers: 4 }
`);

const HEADER = '{"format":"gamefactory-arrivals","version":1,"source":"test"}';
const arrive = (at: number, ticket: string, score: number, extra = '') =>
  `{"at":${at},"arrive":{"ticket":"${ticket}","template":"duel","partition":{"version":"v1"},"party":[{"player":"p-${ticket}","score":${score}}]${extra}}}`;

describe('arrival recordings', () => {
  it('round-trip: what serialize writes, parse reads back', () => {
    const log = parseArrivalLog([HEADER, arrive(0, 'a', 1500), '{"at":50,"cancel":"a"}', arrive(60, 'b', 1400), arrive(70, 'c', 1410), '{"at":100,"matched":["b","c"]}'].join('\n'));
    expect(log.events).toHaveLength(5);
    const again = parseArrivalLog([...serializeArrivalLog(log)].join('\n'));
    expect(again).toEqual(log);
  });

  it('refuses a bad line, naming the line and the field', () => {
    expect(() => parseArrivalLog(`${HEADER}\n${arrive(0, 'a', 1500)}\n{"at":5,"arrive":{"ticket":"b","template":"duel","party":[]}}`, 'rec.jsonl')).toThrow(
      /rec.jsonl:3: invalid event at arrive.party: /,
    );
    expect(() => parseArrivalLog(`${HEADER}\n${arrive(10, 'a', 1500)}\n${arrive(5, 'b', 1500)}`)).toThrow(/:3: at: 5 is before the previous event \(10\)/);
    expect(() => parseArrivalLog('{"format":"other","version":1}')).toThrow(ArrivalLogError);
    expect(() => parseArrivalLog(`${HEADER}\nnot json`)).toThrow(/:2: not JSON/);
    expect(() => parseArrivalLog('')).toThrow(/empty/);
  });
});

describe('gamefactory replay', () => {
  const log = parseArrivalLog(
    [
      HEADER,
      arrive(0, 'a', 1500),
      arrive(10, 'b', 1510),
      arrive(20, 'c', 1900),
      arrive(30, 'd', 2400),
      '{"at":40,"cancel":"d"}',
      arrive(50, 'e', 1890),
      '{"at":"100","matched":["a","b"]}'.replace('"100"', '100'),
      '{"at":200,"matched":["c","e"]}',
      '{"at":60,"arrive":{"ticket":"x","template":"coop","party":[{"player":"q","score":1}]}}'.replace('"at":60', '"at":200'),
    ].join('\n'),
  );

  it('runs each arrival through the configured matcher at its recorded time, batches at their due time', () => {
    const narrow = replayArrivals(log, DUEL('      expansion: [{ afterSeconds: 0, maxScoreGap: 50 }]'), 'narrow');
    expect(narrow.overall.tickets).toBe(5);
    expect(narrow.overall.cancelled).toBe(1);
    expect(narrow.overall.matched).toBe(4);
    // The first batch is due 100 ms after a arrived: a (0 ms) and b (10) pair, and so do c (20)
    // and e (50), 10 apart; d left at 40.
    expect(narrow.overall.waitS.mean).toBeCloseTo((100 + 90 + 80 + 50) / 4 / 1000, 9);
    expect(narrow.factories.map((f) => f.factory)).toEqual(['duel/version=v1']);
    expect(narrow.refused).toEqual([{ reason: 'template "coop" is cooperative (not replayed)', tickets: 1 }]);
  });

  it('compares configurations on the same arrivals: a window too narrow for c and e leaves them waiting', () => {
    const tight = replayArrivals(log, DUEL('      expansion: [{ afterSeconds: 0, maxScoreGap: 5 }]'), 'tight');
    expect(tight.overall.matched).toBe(0);
    expect(tight.overall.unmatched).toBe(4);
    const table = replayTable([recordedRun(log)!, tight]);
    expect(table.split('\n')).toHaveLength(3);
    expect(table).toContain('recorded run');
  });

  it('the recorded run: waits from its matched events', () => {
    const recorded = recordedRun(log)!;
    expect(recorded.overall.matched).toBe(4);
    expect(recorded.overall.waitS.mean).toBeCloseTo((100 + 90 + 180 + 150) / 4 / 1000, 9);
  });

  it('refuses, with the reason, a ticket the configuration does not accept', () => {
    const bounded = parseArrivalLog([HEADER, arrive(0, 'a', 1500, ',"waitBudgetMs":10')].join('\n'));
    const result = replayArrivals(bounded, DUEL('      target: { waitP99Ms: 5000 }'), 'bounded');
    expect(result.refused[0]?.reason).toMatch(/wait_budget_ms: 10 is outside this factory's bounds/);
  });

  it("the simulator's export replays through the same configuration to the same waits", () => {
    const scenario = parseScenario(`
seed: 5
factory: duel
population:
  players: 2000
  skill: { mean: 1500, sd: 200 }
  performanceSd: 150
  regions: [{ name: eu, weight: 1, latitude: 50, longitude: 5 }]
arrivals: { perSecond: 10 }
sessions: { gamesMean: 3, gameSeconds: 60 }
durationHours: 1
ratings: { matchOn: true-skill }
`);
    const config = parseConfig(`
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 250 }
      target: { waitP99Ms: 4000 }
      regions: [eu]
`);
    const exported = exportArrivals(scenario, config, 0.25);
    const events: readonly ArrivalEvent[] = exported.events;
    expect(events.filter((e) => 'arrive' in e).length).toBeGreaterThan(5000);
    const recorded = recordedRun(exported)!;
    const replayed = replayArrivals(exported, config, 'same');
    // Same arrivals, same matcher: batches fall on the coordinator's own timer instead of the
    // simulator's 250 ms checks, so waits agree closely, not to the digit.
    expect(Math.abs(replayed.overall.waitS.p50 / recorded.overall.waitS.p50 - 1)).toBeLessThan(0.1);
    expect(Math.abs(replayed.overall.waitS.p90 / recorded.overall.waitS.p90 - 1)).toBeLessThan(0.1);
  });
});
