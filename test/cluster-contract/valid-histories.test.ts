/**
 * Property: a history made by a model that keeps every promise (one ticket per player, seats
 * before assignments, FIFO with true positions, games within their size and servers within their
 * slots, every call answered at once, tokens up, every ticket ended) shows no violation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContractMonitor, type Observation } from '../../src/cluster/contract/index.js';

const FACTORIES = ['f0', 'f1', 'f2'];
const SERVERS = ['s0', 's1', 's2'];
const MAX_GAMES = 3;
const MAX_PLAYERS = 2;
const TTL_MS = 5000;

type Command =
  | { readonly k: 'find'; readonly f: number }
  | { readonly k: 'assign'; readonly f: number }
  | { readonly k: 'cancel'; readonly f: number }
  | { readonly k: 'end'; readonly f: number }
  | { readonly k: 'fence'; readonly shard: number }
  | { readonly k: 'tick'; readonly ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('find' as const), f: fc.nat(2) }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('assign' as const), f: fc.nat(2) }), weight: 4 },
  fc.record({ k: fc.constant('cancel' as const), f: fc.nat(2) }),
  fc.record({ k: fc.constant('end' as const), f: fc.nat(2) }),
  fc.record({ k: fc.constant('fence' as const), shard: fc.nat(3) }),
  fc.record({ k: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 400 }) }),
);

/** Plays the commands on a model cluster that keeps the contract, and returns what it was seen doing. */
function validHistory(commands: readonly Command[]): { history: Observation[]; end: number } {
  const history: Observation[] = [];
  let now = 0;
  const at = () => ++now;
  const waiting = FACTORIES.map(() => [] as { ticketId: string; player: string; foundAt: number }[]);
  const games = FACTORIES.map(() => [] as { serverId: string; gameId: string; seated: number }[]);
  const running = new Map(SERVERS.map((s) => [s, 0]));
  const tokens = [0, 0, 0, 0];
  let n = 0;
  for (const s of SERVERS) history.push({ kind: 'slots', at: at(), serverId: s, maxGames: MAX_GAMES });
  for (const c of commands) {
    if (c.k === 'find') {
      const ticketId = `t${n}`;
      const player = `p${n++}`;
      const t = at();
      history.push({ kind: 'find', at: t, ticketId, playerIds: [player], factory: FACTORIES[c.f]!, callId: ticketId }, { kind: 'call-started', at: t, callId: ticketId, deadlineAt: t + 100 });
      waiting[c.f]!.push({ ticketId, player, foundAt: t });
      const q = at();
      history.push({ kind: 'queued', at: q, ticketId, position: waiting[c.f]!.length }, { kind: 'call-answered', at: q, callId: ticketId });
    } else if (c.k === 'assign') {
      const next = waiting[c.f]![0];
      if (!next) continue;
      let game = games[c.f]!.find((g) => g.seated < MAX_PLAYERS);
      if (!game) {
        const serverId = SERVERS.find((s) => running.get(s)! < MAX_GAMES);
        if (!serverId) continue;
        running.set(serverId, running.get(serverId)! + 1);
        game = { serverId, gameId: `g${n++}`, seated: 0 };
        games[c.f]!.push(game);
        history.push({ kind: 'game', at: at(), serverId, gameId: game.gameId, factory: FACTORIES[c.f]!, maxPlayers: MAX_PLAYERS });
      }
      waiting[c.f]!.shift();
      game.seated++;
      history.push({ kind: 'seat', at: at(), serverId: game.serverId, gameId: game.gameId, playerId: next.player, token: `tok-${game.gameId}` });
      history.push({ kind: 'assigned', at: at(), ticketId: next.ticketId, serverId: game.serverId, gameId: game.gameId, token: `tok-${game.gameId}` });
    } else if (c.k === 'cancel') {
      const last = waiting[c.f]!.pop();
      if (!last) continue;
      history.push({ kind: 'cancel-asked', at: at(), ticketId: last.ticketId }, { kind: 'ended', at: at(), ticketId: last.ticketId, reason: 'cancelled', detail: '' });
    } else if (c.k === 'end') {
      const game = games[c.f]!.shift();
      if (!game) continue;
      running.set(game.serverId, running.get(game.serverId)! - 1);
      history.push({ kind: 'game-ended', at: at(), serverId: game.serverId, gameId: game.gameId });
    } else if (c.k === 'fence') {
      history.push({ kind: 'fence', at: at(), shard: c.shard, token: ++tokens[c.shard]!, node: `n${c.shard % 2}` });
    } else now += c.ms;
  }
  // Whatever still waits expires, once its time to live is over.
  now += TTL_MS;
  for (const queue of waiting) for (const w of queue) history.push({ kind: 'ended', at: at(), ticketId: w.ticketId, reason: 'expired', detail: 'TTL' });
  return { history, end: at() };
}

describe('the contract on valid histories', () => {
  it('finds no violation in any history that keeps the promises', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 300 }), (commands) => {
        const { history, end } = validHistory(commands);
        const monitor = new ContractMonitor({ ticketTtlMs: TTL_MS, expectedPosition: (_, t) => t.waitingAhead + 1, shardOf: (f) => FACTORIES.indexOf(f) });
        const violations = [...history.flatMap((o) => monitor.observe(o)), ...monitor.finish(end)];
        expect(violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
