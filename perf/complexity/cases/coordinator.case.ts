import { valueKey, type ValueKey } from '../../../src/attributes/attribute-value.js';
import { parseConfig } from '../../../src/config/load.js';
import { buildCore, coreEnvironment } from '../../../src/app/build-core.js';
import type { FindRequest, ServerChannel, TicketListener, TicketUpdate } from '../../../src/coordinator/messages.js';
import { silentLog, type Timers } from '../../../src/coordinator/ports.js';
import { FactoryRegistry } from '../../../src/factories/factory-registry.js';
import { defineCase } from '../case.js';

/**
 * Budgets of the coordinator's own paths (DESIGN.md, "Complexity budgets"): factory selection is
 * O(1) in the number of factories, and a whole cooperative FindGame through the core (checks,
 * ticket, match, reservation, assignment) stays O(1) or O(log n) in open games: the matcher's
 * index is not the only place a hidden scan could live.
 */

const s = (value: string): ValueKey => valueKey({ kind: 'string', value });

/** One template with two axes of a and b values, a * b = n: n live factories. */
function registryOf(n: number) {
  const a = 2 ** Math.ceil(Math.log2(n) / 2);
  const modes = Array.from({ length: a }, (_, i) => `m${i}`);
  const maps = Array.from({ length: n / a }, (_, i) => `x${i}`);
  const config = parseConfig(
    `factories:\n  - name: modes\n    partitioning: { mode: [${modes.join(', ')}], map: [${maps.join(', ')}] }\n    cooperative: { maxPlayers: 4 }`,
  );
  const registry = new FactoryRegistry(config.templates, (identity) => identity.name);
  registry.attach('server', registry.hostable(new Map(), []));
  const partitions = modes.flatMap((m) => maps.map((x) => new Map([['mode', s(m)], ['map', s(x)]])));
  return { registry, partitions };
}

const noTimers: Timers = { set: () => () => {} };
const nullChannel: ServerChannel = { send() {}, close() {} };
const nullListener: TicketListener = { update() {}, fail() {} };

/** A coordinator whose one server re-announced n open games (one player each, act = k mod 8). */
function coordinatorWith(n: number) {
  const config = parseConfig(`
placement: { ticketTtlSeconds: 3600 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 4, reservationMs: 600000 }
`);
  let id = 0;
  // Built as the process builds it: the core, and the host that claims players and applies effects.
  const coordinator = buildCore(config, coreEnvironment(config, { now: () => 0, timers: noTimers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog }));
  const act = (k: number) => valueKey({ kind: 'int', value: BigInt(k % 8) });
  coordinator.connectServer(
    {
      serverId: 'server',
      endpoint: 'server:7777',
      attributes: new Map(),
      templates: [],
      capacity: { maxGames: n + 1, maxStartsPerSecond: 0 },
      runningGames: Array.from({ length: n }, (_, k) => ({
        gameId: `g${k}`,
        factory: 'coop/region=eu',
        matchable: new Map([['act', act(k)]]),
        playerIds: [`resident${k}`],
        open: true,
        startedAt: 0,
      })),
    },
    nullChannel,
  );
  const partition = new Map([['region', s('eu')]]);
  return { coordinator, partition, act };
}

/**
 * A coordinator that restored n waiting tickets (a restart, or a shard's new owner) whose clients
 * have not come back yet, and one server with no free slot: every new find waits in line, and its
 * client is told its place counting the restored tickets of its factory that arrived before it.
 */
function coordinatorRestoring(n: number) {
  const config = parseConfig(`
placement: { ticketTtlSeconds: 3600, maxQueuedPerFactory: 10000000 }
factories:
  - name: coop
    partitioning: { region: [eu, us] }
    cooperative: { maxPlayers: 4 }
`);
  const partition = new Map([['region', s('eu')]]);
  const request = (ticketId: string, region: string): FindRequest => ({
    ticketId,
    template: 'coop',
    party: [{ playerId: `p-${ticketId}`, score: undefined }],
    partition: new Map([['region', s(region)]]),
    matchable: new Map(),
    latenciesMs: new Map(),
    preferredMaps: [],
    vetoedMaps: [],
  });
  // Half of them in another factory, so the count must tell factories apart.
  const restored = Array.from({ length: n }, (_, k) => ({ request: request(`r${k}`, k % 2 === 0 ? 'eu' : 'us'), createdAt: 0, arrival: k }));
  let id = 0;
  const coordinator = buildCore(config, coreEnvironment(config, { now: () => 0, timers: noTimers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog }), { restored });
  coordinator.connectServer({ serverId: 'full', endpoint: 'full:7777', attributes: new Map(), templates: [], capacity: { maxGames: 0, maxStartsPerSecond: 0 }, runningGames: [] }, nullChannel);
  return { coordinator, partition, request };
}

export default [
  defineCase({
    name: 'coordinator: a queued find told its place, with n restored tickets not yet retried',
    budget: 'O(log n)',
    // From 2^11: a find and a cancel through the core cost ~0.1 ms, which hides a scan of fewer.
    minLog2: 11,
    maxLog2: 16,
    setup: coordinatorRestoring,
    run: ({ coordinator, request }, i) => {
      let position = 0;
      coordinator.find(request(`t${i}`, 'eu'), { ...nullListener, update: (u: TicketUpdate) => u.kind === 'queued' && (position = u.position) });
      // Leaves the line again, so the size stays n.
      coordinator.cancel(`t${i}`);
      return position;
    },
  }),
  defineCase({
    name: 'coordinator: select the factory of a request among n factories',
    budget: 'O(1)',
    minLog2: 4,
    maxLog2: 12, // factories.yaml allows at most 4096 factories a template
    setup: registryOf,
    run: ({ registry, partitions }, i) => registry.select('modes', partitions[(i * 7919) % partitions.length]!).name,
  }),
  defineCase({
    name: 'coordinator: a cooperative FindGame through the core, among n open games (find, join, leave)',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: coordinatorWith,
    run: ({ coordinator, partition, act }, i) => {
      const playerId = `p${i}`;
      const request: FindRequest = {
        ticketId: `t${i}`,
        template: 'coop',
        party: [{ playerId, score: undefined }],
        partition,
        matchable: new Map([['act', act(i)]]),
        latenciesMs: new Map(),
        preferredMaps: [],
        vetoedMaps: [],
      };
      let gameId = '';
      coordinator.find(request, { ...nullListener, update: (u: TicketUpdate) => u.kind === 'assigned' && (gameId = u.assignment.gameId) });
      // The player arrives and leaves again, so the game is back to one player.
      coordinator.onServerEvent('server', { kind: 'playerJoined', gameId, playerId });
      coordinator.onServerEvent('server', { kind: 'playerLeft', gameId, playerId });
      return gameId;
    },
  }),
];
