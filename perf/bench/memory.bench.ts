/**
 * Memory per waiting ticket and per open game in the coordinator core (issue 14; goal < 2 KiB and
 * < 1 KiB, gRPC streams excluded): heap after a full collection, before and after N of them.
 */
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, RunningGame, TicketListener } from '../../src/coordinator/messages.js';
import { silentLog, type Timers } from '../../src/coordinator/ports.js';
import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import { findCollector } from '../complexity/gc.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 1000000, ticketTtlSeconds: 3600 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;
const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);
const noTimers: Timers = { set: () => () => {} };
const listener: TicketListener = { update: () => {}, fail: () => {} };
const channel = { send: () => {}, close: () => {} };

function core() {
  const config = parseConfig(YAML);
  let id = 0;
  // As the process builds it: the core and its host (whose player claims count too).
  return buildCore(config, coreEnvironment(config, { now: () => 0, timers: noTimers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog }));
}

function heapBytes(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Waiting tickets: one server whose slots are all taken, so every find queues for a slot. */
function perWaitingTicket(n: number, gc: () => void): number {
  const coordinator = core();
  coordinator.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 1, maxStartsPerSecond: 0 }, runningGames: [] }, channel);
  const before = heapBytes(gc);
  for (let i = 0; i < n; i++) {
    const request: FindRequest = { ticketId: `ticket-${i}`, template: 'coop', party: [{ playerId: `player-${i}`, score: undefined }], partition: EU, matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] };
    coordinator.find(request, listener);
  }
  const bytes = (heapBytes(gc) - before) / n;
  if (coordinator.view.ticket(`ticket-${n - 1}`) === undefined) throw new Error('the last ticket is not waiting');
  return bytes;
}

/** Open games: a server that reports N running games with one player each (three open seats). */
function perOpenGame(n: number, gc: () => void): number {
  const coordinator = core();
  const games: RunningGame[] = Array.from({ length: n }, (_, i) => ({ gameId: `game-${i}`, factory: 'coop/region=eu', matchable: new Map(), playerIds: [`p-${i}`], open: true, startedAt: 0 }));
  const before = heapBytes(gc);
  coordinator.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: n, maxStartsPerSecond: 0 }, runningGames: games }, channel);
  games.length = 0; // only what the coordinator keeps counts
  return (heapBytes(gc) - before) / n;
}

const suite: BenchSuite = {
  name: 'memory',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const gc = findCollector();
    const rows: BenchRow[] = [];
    for (const n of options.quick ? [2_000] : [10_000, 50_000]) {
      rows.push({ group: 'memory per waiting ticket (bytes, goal < 2048)', subject: 'gamefactory', n, metric: 'bytes', value: Math.round(perWaitingTicket(n, gc)), higherIsBetter: false });
      rows.push({ group: 'memory per open game (bytes, goal < 1024)', subject: 'gamefactory', n, metric: 'bytes', value: Math.round(perOpenGame(n, gc)), higherIsBetter: false });
    }
    return rows;
  },
};
export default suite;
