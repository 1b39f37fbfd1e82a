import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, ServerOrder } from '../../src/coordinator/messages.js';
import { CoreDriver, sequence, type Input } from './core-driver.js';

/**
 * The core is a function of its inputs: a recorded sequence of inputs, applied to two fresh cores
 * with the same sources of ids and randomness, gives the same effect log, digit for digit.
 */
const CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 50, ticketTtlSeconds: 30 }
factories:
  - name: party
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 3, reservationMs: 2000 }
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 4, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }, { afterSeconds: 2, maxScoreGap: 400 }]
`);
const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

/** Plays a random session against `driver`, choosing each input from what the core said so far. */
function session(driver: CoreDriver, seed: string, length: number): void {
  const random = sequence(`session-${seed}`);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let now = 1_000_000;
  let calls = 0;
  const pending = new Map<string, Extract<ServerOrder, { kind: 'createGame' }>[]>();
  const games = new Map<string, string[]>();
  const servers = ['s0', 's1'];
  for (let i = 0; i < length; i++) {
    now += Math.floor(random() * 400);
    const roll = random();
    let input: Input;
    if (roll < 0.08) {
      const serverId = pick(servers);
      const channel = `${serverId}#${++calls}`;
      input = { kind: 'hello', at: now, channel, hello: { serverId, endpoint: `${serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames: Math.floor(random() * 4), maxStartsPerSecond: 0 }, runningGames: [] } };
    } else if (roll < 0.45) {
      const t = `t${Math.floor(random() * 40)}`;
      const competitive = random() < 0.4;
      const request: FindRequest = {
        ticketId: t,
        template: competitive ? 'duel' : 'party',
        party: [{ playerId: `p-${t}`, score: competitive ? Math.floor(random() * 1000) : undefined }],
        partition: competitive ? new Map() : EU,
        matchable: competitive ? new Map() : new Map([['act', valueKey({ kind: 'int', value: BigInt(Math.floor(random() * 2)) })]]),
        latenciesMs: new Map(),
        preferredMaps: [],
        vetoedMaps: [],
      };
      input = { kind: 'find', at: now, request, listener: `${t}@${++calls}` };
    } else if (roll < 0.5) {
      input = { kind: 'cancel', at: now, ticketId: `t${Math.floor(random() * 40)}` };
    } else if (roll < 0.65) {
      const serverId = pick(servers);
      const order = pending.get(serverId)?.shift();
      if (!order) continue;
      const gameId = `g${++calls}`;
      const failed = random() < 0.15;
      if (!failed) games.set(gameId, [...order.playerIds]);
      input = failed
        ? { kind: 'event', at: now, serverId, event: { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'test' } }
        : { kind: 'event', at: now, serverId, event: { kind: 'gameCreated', requestId: order.requestId, gameId } };
    } else if (roll < 0.72 && games.size > 0) {
      const [gameId, players] = pick([...games]);
      const serverId = pick(servers);
      input = random() < 0.5 || players.length === 0
        ? { kind: 'event', at: now, serverId, event: { kind: 'gameEnded', gameId } }
        : { kind: 'event', at: now, serverId, event: { kind: 'playerJoined', gameId, playerId: pick(players) } };
    } else if (roll < 0.76) {
      input = { kind: 'event', at: now, serverId: pick(servers), event: { kind: 'capacityChanged', capacity: { maxGames: Math.floor(random() * 5), maxStartsPerSecond: 0 } } };
    } else {
      now += Math.floor(random() * 1500);
      input = { kind: 'advance', at: now };
    }
    const before = driver.effects.length;
    driver.apply(input);
    for (const effect of driver.effects.slice(before)) {
      if (effect.kind === 'order' && effect.order.kind === 'createGame') {
        const list = pending.get(effect.serverId) ?? [];
        pending.set(effect.serverId, [...list, effect.order]);
      }
    }
  }
}

describe('the core is deterministic', () => {
  it('replays a recorded session to the same effect log, digit for digit, whatever the session', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 8 }), (seed) => {
        const recorded = new CoreDriver(CONFIG, seed);
        session(recorded, seed, 300);
        const replayed = new CoreDriver(CONFIG, seed);
        for (const input of recorded.inputs) replayed.apply(input);
        expect(replayed.log()).toBe(recorded.log());
        expect(replayed.core.nextWakeAt()).toBe(recorded.core.nextWakeAt());
      }),
      { numRuns: 30 },
    );
  });

  it('a session does something worth replaying: orders, assignments, queues, batches, expiries', () => {
    const driver = new CoreDriver(CONFIG, 'busy');
    session(driver, 'busy', 600);
    const kinds = new Set(driver.effects.map((e) => (e.kind === 'event' ? e.type : e.kind === 'order' ? e.order.kind : e.kind === 'update' ? e.update.kind : e.kind)));
    for (const kind of ['createGame', 'reserveSeats', 'assigned', 'queued', 'fail', 'store', 'unstore', 'release', 'competitiveGameFormed', 'requeued', 'link']) {
      expect(kinds, kind).toContain(kind);
    }
  });
});
