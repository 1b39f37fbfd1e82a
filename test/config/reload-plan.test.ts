import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import { planReload, type LiveFactory } from '../../src/config/reload-plan.js';

/** What a reload may change while factories are live, and the reasons it gives when it may not. */
const BASE = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: coop
    partitioning: { version: [v1, v2] }
    matchable: [act]
    cooperative: { maxPlayers: 4 }
  - name: duel
    partitioning: { region: [eu, us] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }, { afterSeconds: 10, maxScoreGap: 300 }]
`;
const s = (value: string) => valueKey({ kind: 'string', value });
const duelEu: LiveFactory = { template: 'duel', name: 'duel/region=eu', partition: new Map([['region', s('eu')]]) };
const coopV1: LiveFactory = { template: 'coop', name: 'coop/version=v1', partition: new Map([['version', s('v1')]]) };

function plan(next: string, live: readonly LiveFactory[] = [duelEu, coopV1]) {
  return planReload(parseConfig(BASE), parseConfig(next), live);
}

describe('planReload', () => {
  it('the same file changes nothing', () => {
    expect(plan(BASE)).toEqual({ ok: true, changes: [] });
  });

  it("a live competitive template's expansion and batch change live, and say which settings changed", () => {
    const next = BASE.replace('maxScoreGap: 300', 'maxScoreGap: 600').replace('intervalMs: 200', 'intervalMs: 100');
    expect(plan(next)).toEqual({ ok: true, changes: ['template "duel": competitive.batch, competitive.expansion changed'] });
  });

  it('a template added, and placement timings, change live', () => {
    const next = BASE.replace('createTimeoutMs: 5000', 'createTimeoutMs: 3000').replace('ticketTtlSeconds: 60', 'ticketTtlSeconds: 90') +
      `  - name: ffa\n    competitive: { teams: 8, teamSize: 1, expansion: [{ afterSeconds: 0, maxScoreGap: 200 }] }\n`;
    expect(plan(next)).toEqual({
      ok: true,
      changes: ['placement.createTimeoutMs: 5000 -> 3000', 'placement.ticketTtlSeconds: 60 -> 90 (tickets from now on)', 'template "ffa" added'],
    });
  });

  it("a live template's partitioning axes, team layout, cooperative settings and matchable keys are refused, each with its path", () => {
    const next = BASE.replace('partitioning: { region: [eu, us] }', 'partitioning: { region: [eu, us], mode: [ranked] }')
      .replace('teamSize: 1', 'teamSize: 2')
      .replace('maxPlayers: 4', 'maxPlayers: 6')
      .replace('matchable: [act]', 'matchable: [act, quest]');
    const result = plan(next);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toHaveLength(4);
    expect(problems).toContain(
      'factories[duel].partitioning: cannot change while 1 of its factories is live (duel/region=eu: game servers serve them or tickets wait in them) (its factories, their servers and tickets are keyed by these axes)',
    );
    expect(problems.some((p) => p.startsWith('factories[duel].competitive.teamSize: cannot change while'))).toBe(true);
    expect(problems.some((p) => p.startsWith('factories[coop].cooperative.maxPlayers: cannot change while'))).toBe(true);
    expect(problems.some((p) => p.startsWith('factories[coop].matchable: cannot change while'))).toBe(true);
  });

  it('the same changes are accepted for a template none of whose factories is live', () => {
    const next = BASE.replace('partitioning: { region: [eu, us] }', 'partitioning: { region: [eu, us], mode: [ranked] }').replace('teamSize: 1', 'teamSize: 2');
    expect(plan(next, [coopV1])).toEqual({ ok: true, changes: ['template "duel": partitioning, competitive.teamSize changed'] });
  });

  it('an axis value may be added, and dropped only when no live factory has it', () => {
    expect(plan(BASE.replace('[eu, us]', '[eu, us, asia]'))).toEqual({ ok: true, changes: ['template "duel": partitioning values changed'] });
    expect(plan(BASE.replace('[eu, us]', '[eu]'))).toEqual({ ok: true, changes: ['template "duel": partitioning values changed'] });
    const dropped = plan(BASE.replace('[eu, us]', '[us]'));
    expect(dropped).toEqual({
      ok: false,
      problems: ['factories[duel].partitioning.region: cannot drop "eu" while 1 of its factories is live (duel/region=eu: game servers serve them or tickets wait in them)'],
    });
  });

  it('a template is removed only when none of its factories is live', () => {
    const withoutCoop = BASE.replace(/  - name: coop[\s\S]*?maxPlayers: 4 }\n/, '');
    expect(plan(withoutCoop, [duelEu])).toEqual({ ok: true, changes: ['template "coop" removed'] });
    const refused = plan(withoutCoop);
    expect(refused.ok ? [] : refused.problems).toEqual([
      'factories[coop]: cannot be removed while 1 of its factories is live (coop/version=v1: game servers serve them or tickets wait in them)',
    ]);
  });

  it('every placement setting but the policy changes live, the pool bound included', () => {
    const next = BASE.replace('maxQueuedPerFactory: 100,', 'maxQueuedPerFactory: 100, maxPooledPerFactory: 5000,');
    expect(plan(next)).toEqual({ ok: true, changes: ['placement.maxPooledPerFactory: 100000 -> 5000'] });
  });

  it('a top-level section it does not know is read at start: refused when it differs', () => {
    const current = parseConfig(BASE);
    const next = { ...current, experimental: { on: true } } as typeof current;
    expect(planReload(current, next, [])).toEqual({ ok: false, problems: ['experimental: cannot change live; restart to change it'] });
  });

  it('settings read at start are refused whatever is live, naming the restart', () => {
    const next = BASE.replace('policy: fill', 'policy: spread') + 'servers: { keepaliveIntervalMs: 1000 }\ngrpc: { keepaliveTimeMs: 60000 }\n';
    const result = plan(next, []);
    expect(result.ok ? [] : result.problems).toEqual([
      'servers: cannot change live (game-server links keep the interval they were opened with); restart to change it',
      'grpc: cannot change live (the gRPC server is built with it); restart to change it',
      "placement.policy: cannot change live (the slot ledger's order is built on it); restart to change it",
    ]);
  });
});
