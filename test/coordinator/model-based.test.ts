import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { Effect } from '../../src/coordinator/effects.js';
import type { FindRequest, ServerEvent, ServerOrder, TicketUpdate } from '../../src/coordinator/messages.js';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { CoreDriver, type Handle, type Input } from './core-driver.js';

/**
 * The core as a specification: random sequences of find, cancel, party find, server
 * hello/leave/crash, create ack/fail/timeout, join/leave/end, and restart, fed to the core as
 * inputs, against a small reference model of what its effects told clients and servers. After
 * every step the invariants hold:
 * each ticket in exactly one state; each player in at most one live ticket and one game; no
 * server over its advertised slots; an assigned ticket never re-queued; nothing acknowledged lost.
 */

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 60 }
factories:
  - name: party
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 3, reservationMs: 5000 }
`;
const PLAYERS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
const SERVERS = ['s0', 's1'];
const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

interface ClientTicket {
  readonly request: FindRequest;
  /** The call's listener (a name the core hands back in effects). */
  listener: string;
  /** What this call was told, from the core's effects. */
  updates: TicketUpdate[];
  error: MatchmakingError | undefined;
  /** Acknowledged: find was not refused. */
  accepted: boolean;
}

interface HostedGame {
  readonly players: Set<string>;
}

interface ModelServer {
  readonly channel: string;
  readonly maxGames: number;
  pending: { order: ServerOrder; sentAt: number }[];
  readonly games: Map<string, HostedGame>;
}

/**
 * The core driven directly, as an edge would, and the model: what each client and each game
 * server has been told, read from the effects (updates and failures by listener, orders by the
 * server's linked channel, records kept by the store). Time is the inputs' own.
 */
class World {
  now = 1_000_000;
  readonly store = new Map<string, TicketRecord>();
  driver!: CoreDriver;
  readonly servers = new Map<string, ModelServer>();
  readonly tickets = new Map<string, ClientTicket>();
  private readonly byListener = new Map<string, ClientTicket>();
  private readonly linked = new Map<string, string>();
  private nextGame = 0;
  private calls = 0;
  private boots = 0;

  constructor() {
    this.boot();
    // A server from the start, so finds have somewhere to go before the sequence brings more.
    this.connect('s0', 2);
  }

  boot(): void {
    this.driver = new CoreDriver(parseConfig(YAML), `boot${++this.boots}`, [...this.store.values()], this.now);
    this.linked.clear();
  }

  get view() {
    return this.driver.core.view;
  }

  /** Feeds an input and applies its effects to the model; returns the refusal, if any. */
  input(input: Input): unknown {
    const before = this.driver.effects.length;
    const step = this.driver.apply(input);
    for (const effect of this.driver.effects.slice(before)) this.observe(effect);
    return step.refused;
  }

  private observe(effect: Effect): void {
    switch (effect.kind) {
      case 'update':
      case 'fail': {
        const ticket = this.byListener.get((effect.listener as Handle).name);
        if (!ticket) return;
        if (effect.kind === 'update') ticket.updates.push(effect.update);
        else ticket.error = effect.error;
        return;
      }
      case 'link':
        this.linked.set(effect.serverId, (effect.channel as Handle).name);
        return;
      case 'unlink':
        if (this.linked.get(effect.serverId) === (effect.channel as Handle).name) this.linked.delete(effect.serverId);
        return;
      case 'order': {
        const server = this.servers.get(effect.serverId);
        if (!server || this.linked.get(effect.serverId) !== server.channel || effect.order.kind !== 'createGame') return;
        const requestId = effect.order.requestId;
        // A re-sent order (after a timeout) replaces the copy the server still holds.
        server.pending = server.pending.filter((p) => p.order.kind !== 'createGame' || p.order.requestId !== requestId);
        server.pending.push({ order: effect.order, sentAt: this.now });
        return;
      }
      case 'store':
        this.store.set(effect.record.request.ticketId, effect.record);
        return;
      case 'unstore':
        this.store.delete(effect.ticketId);
        return;
    }
  }

  /** Time passes: the core is called at each of its deadlines, as a host's timer would, so what it sends is stamped right. */
  advance(ms: number): void {
    const until = this.now + ms;
    for (let at = this.driver.core.nextWakeAt(); at !== undefined && at <= until; at = this.driver.core.nextWakeAt()) {
      this.now = Math.max(this.now, at);
      this.input({ kind: 'advance', at: this.now });
    }
    this.now = until;
    this.input({ kind: 'advance', at: this.now });
  }

  connect(serverId: string, maxGames: number): void {
    const channel = `${serverId}#${++this.calls}`;
    this.servers.set(serverId, { channel, maxGames, pending: [], games: new Map() });
    this.input({
      kind: 'hello',
      at: this.now,
      channel,
      hello: { serverId, endpoint: `${serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [] },
    });
  }

  disconnect(serverId: string): void {
    const server = this.servers.get(serverId);
    if (!server) return;
    this.servers.delete(serverId);
    this.input({ kind: 'bye', at: this.now, serverId, channel: server.channel });
  }

  event(serverId: string, event: ServerEvent): void {
    this.input({ kind: 'event', at: this.now, serverId, event });
  }

  ack(serverId: string, fail: boolean): void {
    const server = this.servers.get(serverId);
    const order = server?.pending.shift()?.order;
    if (!server || order?.kind !== 'createGame') return;
    if (fail) return this.event(serverId, { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'test' });
    const gameId = `g${++this.nextGame}`;
    server.games.set(gameId, { players: new Set() });
    this.event(serverId, { kind: 'gameCreated', requestId: order.requestId, gameId });
    // A confirmation after the order was taken back (past confirm_within_ms) is rejected: the game
    // was never the coordinator's, and a server told so does not keep it.
    if (this.view.gameServer(gameId) !== serverId) server.games.delete(gameId);
  }

  find(ticketId: string, players: string[]): void {
    const request: FindRequest = {
      ticketId,
      template: 'party',
      party: players.map((playerId) => ({ playerId, score: undefined })),
      partition: EU,
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
    const previous = this.tickets.get(ticketId);
    this.call({ request: previous?.request ?? request, listener: '', updates: [], error: undefined, accepted: false }, previous);
  }

  /** One FindGame call for `ticket`'s request; it replaces the ticket's record if accepted (or if there was none). */
  private call(ticket: ClientTicket, previous: ClientTicket | undefined): void {
    ticket.listener = `${ticket.request.ticketId}@${++this.calls}`;
    this.byListener.set(ticket.listener, ticket);
    const refused = this.input({ kind: 'find', at: this.now, request: ticket.request, listener: ticket.listener });
    ticket.accepted = refused === undefined;
    if (refused !== undefined && typeof refused !== 'string') expect(refused).toBeInstanceOf(MatchmakingError);
    if (ticket.accepted || !previous) this.tickets.set(ticket.request.ticketId, ticket);
  }

  /** Restart: the process stops (waiting tickets stored), servers reconnect later, clients with stored tickets retry. */
  restart(): void {
    this.input({ kind: 'shutdown', at: this.now });
    const stored = [...this.tickets].filter(([id, t]) => t.accepted && this.store.has(id));
    for (const [, t] of this.tickets) t.accepted = false;
    this.servers.clear();
    this.now += 1; // the clock moves on a little
    this.boot();
    // Clients whose ticket was stored retry it: it must be taken back, never refused.
    for (const [, t] of stored) {
      this.call({ request: t.request, listener: '', updates: [], error: undefined, accepted: false }, t);
      expect(this.tickets.get(t.request.ticketId)!.accepted, `stored ticket ${t.request.ticketId} refused after a restart`).toBe(true);
    }
  }
}

type Cmd = fc.Command<object, World>;
const step = (name: string, run: (w: World) => void): Cmd => ({
  check: () => true,
  run(_m, w) {
    run(w);
    checkInvariants(w);
  },
  toString: () => name,
});

function checkInvariants(w: World): void {
  const view = w.view;
  const snap = view.snapshot();
  // Each ticket in exactly one state.
  const byState = Object.values(snap.ticketsByState).reduce((a, b) => a + b, 0);
  expect(byState).toBe(snap.tickets);
  const live = new Map<string, string>();
  for (const [ticketId, t] of w.tickets) {
    const summary = view.ticket(ticketId);
    const assignedAt = t.updates.findIndex((u) => u.kind === 'assigned');
    // An assigned ticket is never re-queued.
    if (assignedAt >= 0) expect(t.updates.slice(assignedAt + 1).filter((u) => u.kind === 'queued')).toEqual([]);
    if (summary && summary.state !== 'assigned') {
      // Each player in at most one live ticket.
      for (const p of summary.playerIds) {
        expect(live.get(p), `player ${p} in two live tickets`).toBeUndefined();
        live.set(p, ticketId);
      }
    }
    // Nothing acknowledged lost: an accepted ticket is in the book, or its client heard how it ended;
    // and a ticket the core assigned has told its client so.
    if (t.accepted && !summary) expect(assignedAt >= 0 || t.error !== undefined).toBe(true);
    if (t.accepted && summary?.state === 'assigned') expect(assignedAt, `${ticketId} assigned, its client not told`).toBeGreaterThanOrEqual(0);
  }
  // No server gets more games (running + ordered) than it advertised; no player in two games.
  const inGame = new Map<string, string>();
  for (const [serverId, s] of w.servers) {
    // Orders past the confirmation deadline were taken back by the coordinator: their slot is free.
    const inFlight = s.pending.filter((p) => w.now - p.sentAt < 1000).length;
    expect(s.games.size + inFlight, serverId).toBeLessThanOrEqual(s.maxGames);
    for (const [gameId, g] of s.games) {
      for (const p of g.players) {
        expect(inGame.get(p), `player ${p} in two games`).toBeUndefined();
        inGame.set(p, gameId);
      }
    }
  }
}

const serverId = fc.constantFrom(...SERVERS);
const ticketId = fc.constantFrom('t0', 't1', 't2', 't3', 't4', 't5');
const findCommand = fc.tuple(ticketId, fc.subarray(PLAYERS, { minLength: 1, maxLength: 3 })).map(([id, players]) => step(`find(${id}, ${players})`, (w) => w.find(id, players)));
const ackCommand = fc.tuple(serverId, fc.boolean()).map(([id, fail]) => step(`${fail ? 'fail' : 'ack'}(${id})`, (w) => w.ack(id, fail)));
// Finds and acks weigh more (they appear several times): they are what moves tickets.
const commands = [
  findCommand,
  findCommand,
  findCommand,
  ackCommand,
  ackCommand,
  ticketId.map((id) => step(`cancel(${id})`, (w) => void w.input({ kind: 'cancel', at: w.now, ticketId: id }))),
  fc.tuple(serverId, fc.integer({ min: 0, max: 3 })).map(([id, n]) => step(`hello(${id}, ${n})`, (w) => (w.servers.has(id) ? undefined : w.connect(id, n)))),
  serverId.map((id) => step(`leave(${id})`, (w) => w.disconnect(id))),
  fc.integer({ min: 100, max: 6000 }).map((ms) => step(`advance(${ms})`, (w) => w.advance(ms))),
  fc.tuple(serverId, fc.constantFrom(...PLAYERS), fc.boolean()).map(([id, player, join]) =>
    step(`${join ? 'join' : 'part'}(${id}, ${player})`, (w) => {
      const server = w.servers.get(id);
      const entry = server && [...server.games.entries()][0];
      if (!entry) return;
      const [gameId, game] = entry;
      if (join) {
        if (game.players.size >= 3) return;
        for (const s of w.servers.values()) for (const g of s.games.values()) g.players.delete(player);
        game.players.add(player);
        w.event(id, { kind: 'playerJoined', gameId, playerId: player });
      } else if (game.players.delete(player)) {
        w.event(id, { kind: 'playerLeft', gameId, playerId: player });
      }
    }),
  ),
  serverId.map((id) =>
    step(`end(${id})`, (w) => {
      const server = w.servers.get(id);
      const gameId = server && [...server.games.keys()][0];
      if (!server || !gameId) return;
      server.games.delete(gameId);
      w.event(id, { kind: 'gameEnded', gameId });
    }),
  ),
  fc.constant(step('restart', (w) => w.restart())),
];

describe('the coordinator core against a reference model, on its effects', () => {
  it('keeps its invariants over random sequences of client and server events and restarts', () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 80, size: 'max' }), (cmds) => {
        fc.modelRun(() => ({ model: {}, real: new World() }), cmds);
      }),
      { numRuns: 100 },
    );
  });
});
