/**
 * CPU per FindGame through the core, no gRPC: this checkout against the base one, interleaved.
 * `npx tsx perf/compare/core-path.ts [--base DIR] [--rounds N]`. Each round runs, in a fresh child
 * process per checkout (alternating which goes first), two paths on one game server:
 *   matched: a party of one joins one of 2,000 open games, then joins and leaves it (the common
 *            cooperative path: reserve, ReserveSeats, assignment);
 *   created: a party of four needs a new game; the server confirms it (placement, CreateGame,
 *            confirmation, four assignments).
 * It reports CPU µs per find (process.cpuUsage, less disturbed by a loaded machine than wall time)
 * with the load average beside. The base checkout's core had an asynchronous placement port, so
 * its created path awaits a macrotask per game: counted in the same way (CPU, not wall).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const YAML = `
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 1000000, ticketTtlSeconds: 3600 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 4, reservationMs: 600000 }
`;

interface Core {
  find(request: unknown, listener: unknown): void;
  connectServer(hello: unknown, channel: unknown): unknown;
  onServerEvent(serverId: string, event: unknown): void;
}

/** Builds the checkout's core, whichever API it has (the base's Coordinator, or buildCore). */
async function coreOf(root: string): Promise<{ core: Core; tick: () => Promise<void> }> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { parseConfig } = await load('src/config/load.ts');
  const { silentLog } = await load('src/coordinator/ports.ts');
  const config = parseConfig(YAML);
  let id = 0;
  const timers = { set: () => () => {} };
  const deps = { now: () => 0, timers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog };
  let core: Core;
  try {
    const { buildCore, coreEnvironment } = await load('src/app/build-core.ts');
    core = buildCore(config, coreEnvironment(config, deps));
  } catch {
    const { Coordinator } = await load('src/coordinator/coordinator.ts');
    const { InProcessPlacement } = await load('src/placement/index.ts');
    core = new Coordinator(config, deps, new InProcessPlacement('fill', () => 0));
  }
  return { core, tick: () => new Promise((r) => setImmediate(r)) };
}

async function child(root: string): Promise<void> {
  const orders: { kind: string; requestId?: string }[] = [];
  const channel = { send: (o: { kind: string; requestId?: string }) => orders.push(o), close() {} };
  const { core, tick } = await coreOf(root);
  const act = (k: number) => `i:${k % 8}`;
  const games = 2000;
  core.connectServer(
    {
      serverId: 's',
      endpoint: 's:1',
      attributes: new Map(),
      templates: [],
      capacity: { maxGames: 10_000_000, maxStartsPerSecond: 0 },
      runningGames: Array.from({ length: games }, (_, k) => ({ gameId: `g${k}`, factory: 'coop/region=eu', matchable: new Map([['act', act(k)]]), playerIds: [`r${k}`], open: true, startedAt: 0 })),
    },
    channel,
  );
  const request = (ticketId: string, players: string[], k: number) => ({
    ticketId,
    template: 'coop',
    party: players.map((playerId) => ({ playerId, score: undefined })),
    partition: new Map([['region', 's:eu']]),
    matchable: new Map([['act', act(k)]]),
    latenciesMs: new Map(),
    preferredMaps: [],
    vetoedMaps: [],
  });
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  // matched
  const matched = async (n: number, from: number) => {
    const start = cpu();
    for (let i = from; i < from + n; i++) {
      let gameId = '';
      const listener = { update: (u: { kind: string; assignment?: { gameId: string } }) => u.kind === 'assigned' && (gameId = u.assignment!.gameId), fail() {} };
      core.find(request(`m${i}`, [`pm${i}`], i), listener);
      core.onServerEvent('s', { kind: 'playerJoined', gameId, playerId: `pm${i}` });
      core.onServerEvent('s', { kind: 'playerLeft', gameId, playerId: `pm${i}` });
    }
    return (cpu() - start) / n;
  };
  // created: a party of four with an act no open game has (act 9)
  const created = async (n: number, from: number) => {
    const start = cpu();
    for (let i = from; i < from + n; i++) {
      const listener = { update() {}, fail() {} };
      core.find(request(`c${i}`, [`a${i}`, `b${i}`, `c${i}`, `d${i}`], 9), listener);
      await tick();
      const order = orders.filter((o) => o.kind === 'createGame').at(-1);
      orders.length = 0;
      core.onServerEvent('s', { kind: 'gameCreated', requestId: order!.requestId, gameId: `new${i}` });
      core.onServerEvent('s', { kind: 'gameEnded', gameId: `new${i}` });
    }
    return (cpu() - start) / n;
  };
  await matched(20_000, 0); // warm-up
  await created(2_000, 0);
  const m = await matched(100_000, 100_000);
  const c = await created(10_000, 100_000);
  console.log(JSON.stringify({ matched: m, created: c }));
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await child(args[1]!);
  process.exit(0);
}
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1]! : fallback;
};
const base = option('--base', '/work/wt/base-1afd647');
const rounds = Number(option('--rounds', '5'));
const ours = fileURLToPath(new URL('../..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const results: Record<'base' | 'ours', { matched: number; created: number }[]> = { base: [], ours: [] };
const loads: number[] = [];
for (let r = 0; r < rounds; r++) {
  const order: ['base' | 'ours', string][] = r % 2 === 0 ? [['base', base], ['ours', ours]] : [['ours', ours], ['base', base]];
  for (const [side, root] of order) {
    loads.push(loadavg()[0]!);
    const run = spawnSync('npx', ['tsx', self, '--child', root], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    results[side].push(JSON.parse(run.stdout.trim().split('\n').at(-1)!));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log(`CPU µs per find through the core, median of ${rounds} interleaved rounds; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
for (const path of ['matched', 'created'] as const) {
  const b = median(results.base.map((x) => x[path]));
  const o = median(results.ours.map((x) => x[path]));
  console.log(`${path}: base ${b.toFixed(2)} µs, ours ${o.toFixed(2)} µs, ours faster by ${(b / o).toFixed(2)}x`);
}
