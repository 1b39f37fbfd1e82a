import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { Effect } from '../../src/coordinator/effects.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { REJECTION_LOG_WINDOW_MS } from '../../src/coordinator/servers/rejection-log.js';
import { CoreDriver } from './core-driver.js';

/** What one client or one game server can make the core hold or write: bounded. */

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, maxPooledPerFactory: 3, ticketTtlSeconds: 60 }
factories:
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 60000 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 1 }]
`;

const request = (ticketId: string, score: number): FindRequest => ({
  ticketId,
  template: 'duel',
  party: [{ playerId: ticketId, score }],
  partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

const hello = { serverId: 's1', endpoint: 's1:7777', attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [] };

const logs = (effects: readonly Effect[], message: RegExp) =>
  effects.filter((e): e is Extract<Effect, { kind: 'log' }> => e.kind === 'log' && message.test(e.message));

describe('bounds', () => {
  it('a competitive pool holds at most placement.maxPooledPerFactory tickets; the next find is RESOURCE_EXHAUSTED naming the factory and the limit', () => {
    const driver = new CoreDriver(parseConfig(YAML), 'pool');
    driver.apply({ kind: 'hello', at: 1_000_000, hello, channel: 's1' });
    // Scores far apart: nothing pairs, every ticket stays in the pool.
    for (let i = 0; i < 3; i++) expect(driver.apply({ kind: 'find', at: 1_000_001, request: request(`t${i}`, i * 100), listener: `l${i}` }).refused).toBeUndefined();
    const refused = driver.apply({ kind: 'find', at: 1_000_002, request: request('t3', 300), listener: 'l3' }).refused as { code: string; message: string; retryAfterMs?: number };
    expect(refused.code).toBe('RESOURCE_EXHAUSTED');
    expect(refused.message).toBe('duel/region=eu: 3 tickets already wait in its pool, the limit (placement.maxPooledPerFactory = 3); retry later');
    // The refused party's players are free again, and a place in the pool opens when a ticket leaves.
    driver.apply({ kind: 'cancel', at: 1_000_003, ticketId: 't0' });
    expect(driver.apply({ kind: 'find', at: 1_000_004, request: request('t3', 300), listener: 'l3' }).refused).toBeUndefined();
  });

  it('logs a flood of rejected reports from one server as one line and a summary per window, while every one is answered and counted', () => {
    const driver = new CoreDriver(parseConfig(YAML), 'flood');
    const at = 1_000_000;
    driver.apply({ kind: 'hello', at, hello, channel: 's1' });
    const before = driver.effects.length;
    for (let i = 0; i < 5000; i++) driver.apply({ kind: 'event', at: at + i, serverId: 's1', event: { kind: 'gameEnded', gameId: `nope${i}` } });
    let effects = driver.effects.slice(before);
    expect(effects.filter((e) => e.kind === 'order' && e.order.kind === 'rejected')).toHaveLength(5000);
    expect(effects.filter((e) => e.kind === 'event' && e.type === 'serverMessageRejected')).toHaveLength(5000);
    expect(logs(effects, /rejected/)).toHaveLength(1);

    const closed = driver.effects.length;
    driver.apply({ kind: 'advance', at: at + 5000 + REJECTION_LOG_WINDOW_MS });
    effects = driver.effects.slice(closed);
    const [summary] = logs(effects, /rejected more messages/);
    expect(summary?.fields).toEqual({ serverId: 's1', rejected: 4999, byKind: { gameEnded: 4999 }, lastProblem: 'unknown game_id "nope4999"', windowMs: REJECTION_LOG_WINDOW_MS });
    // The next window starts with a line in full again.
    const next = driver.effects.length;
    driver.apply({ kind: 'event', at: at + 20_000, serverId: 's1', event: { kind: 'gameEnded', gameId: 'again' } });
    expect(logs(driver.effects.slice(next), /rejected a game server message/)).toHaveLength(1);
  });
});
