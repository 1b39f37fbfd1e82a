/**
 * What storing tickets whose CreateGame is in flight costs (so a coordinator killed mid-creation
 * gives their retries the game the server re-announces): the core and its LMDB ticket store, no
 * transport, on the worst case for it, a factory where every find creates a game (solo), each
 * confirmed at once. Runs with the option off and on, alternately, and prints the median ratio:
 *   npx tsx perf/profile/store-in-flight.ts [finds=20000] [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { ServerOrder } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';

const finds = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const config = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 1000000, ticketTtlSeconds: 600 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`);
const partition = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

async function run(storeInFlight: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-store-in-flight-'));
  const lmdb = LmdbStore.open(dir);
  let id = 0;
  const timers = {
    set: (fn: () => void, ms: number) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  };
  const host = buildCore(config, coreEnvironment(config, { now: () => Date.now(), timers, log: silentLog, newId: () => `i${++id}` }), { store: lmdb.tickets, storeInFlight });
  const creates: string[] = [];
  const channel = { send: (o: ServerOrder) => void (o.kind === 'createGame' && creates.push(o.requestId)), close: () => {} };
  host.connectServer({ serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 10_000_000, maxStartsPerSecond: 0 }, runningGames: [] }, channel);
  const listener = { update: () => {}, fail: () => {} };
  const start = performance.now();
  for (let i = 0; i < finds; i++) {
    const request = { ticketId: `t${i}`, template: 'solo', party: [{ playerId: `p${i}`, score: undefined }], partition, matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] };
    host.find(request, listener);
    host.onServerEvent('s', { kind: 'gameCreated', requestId: creates.pop()!, gameId: `g${i}` });
    // Let LMDB commit as the process would between requests.
    if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await lmdb.tickets.flushed();
  const ms = performance.now() - start;
  host.close();
  await lmdb.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function main(): Promise<void> {
  const off: number[] = [];
  const on: number[] = [];
  for (let r = 0; r < rounds; r++) {
    off.push(await run(false));
    on.push(await run(true));
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  console.log(JSON.stringify({ finds, offMs: off.map(Math.round), onMs: on.map(Math.round), ratioOnOverOff: +(median(on) / median(off)).toFixed(2) }));
}

void main();
