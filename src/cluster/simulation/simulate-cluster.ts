import { parseConfig } from '../../config/load.js';
import { silentLog } from '../../coordinator/ports.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import { ClusterNode, type PeerNetwork } from '../node/cluster-node.js';
import { SimChecks, type Violation } from './sim-checks.js';
import { SimClients } from './sim-clients.js';
import { SimGameServer } from './sim-game-server.js';
import { SimRedis } from './sim-store.js';
import { SimWorld, type SimProcess } from './world.js';
import { MatchmakingError } from '../../errors/index.js';
import type { TicketListener } from '../../coordinator/messages.js';

/**
 * The factories every schedule runs: six of one-player games (every ticket is a CreateGame) and six
 * cooperative ones of four (tickets fill open games with ReserveSeats), spread over the shards.
 */
export const SIMULATED_FACTORIES = `
placement: { policy: fill, createTimeoutMs: 2000, ticketTtlSeconds: 600 }
factories:
  - name: solo
    partitioning: { region: [eu, us, asia], mode: [a, b] }
    matchable: [act]
    cooperative: { maxPlayers: 1, reservationMs: 5000 }
  - name: coop
    partitioning: { region: [eu, us, asia], mode: [a, b] }
    matchable: [act]
    cooperative: { maxPlayers: 4, reservationMs: 5000 }
`;

export interface ScheduleOptions {
  readonly seed: number;
  readonly nodes?: number;
  readonly servers?: number;
  readonly gamesPerServer?: number;
  readonly shardCount?: number;
  readonly leaseMs?: number;
  readonly tickets?: number;
  /** Finds arrive over this long; faults happen in it too. */
  readonly durationMs?: number;
  /** Faults in the schedule (kill -9, pause, Redis restarts); 0 for none. */
  readonly faults?: number;
  /** The templates tickets find: `solo` (every ticket a new game) by default; `coop` fills open games too. */
  readonly templates?: readonly ('solo' | 'coop')[];
  /** A bug planted in every node, to show the simulator finds it. */
  readonly plantedBug?: 'forget-on-redis-restart';
}

export interface ScheduleResult {
  readonly seed: number;
  readonly violations: readonly Violation[];
  readonly assigned: number;
  readonly tickets: number;
  readonly faults: readonly string[];
  readonly steps: number;
  /** What each ticket a violation names heard, call by call: a failing seed's story. */
  readonly stories: Readonly<Record<string, readonly string[]>>;
}

/**
 * One schedule of the whole cluster in the deterministic world: nodes built as production builds
 * them (ClusterNode over the ShardStore port), a Redis, game servers and clients; a seed decides
 * every arrival, delay and fault. The contract is checked after every step, and at the end (after
 * a quiet time long enough for every failover) no ticket may be left without its answer.
 */
export async function simulateCluster(options: ScheduleOptions): Promise<ScheduleResult> {
  const config = parseConfig(SIMULATED_FACTORIES);
  const world = new SimWorld(options.seed);
  const checks = new SimChecks(() => world.now);
  const redis = new SimRedis(world);
  const leaseMs = options.leaseMs ?? 2_000;
  const shardCount = options.shardCount ?? 8;
  const nodeCount = options.nodes ?? 3;
  let steps = 0;

  // Nodes: a killed node comes back as a new node id (a new process), as a restarted one would.
  const live = new Map<string, { node: ClusterNode; process: SimProcess }>();
  const processOfNode = new Map<ClusterNode, SimProcess>();
  const processOf = (node: ClusterNode) => processOfNode.get(node)!;
  const liveNodes = () => [...live.values()].filter((n) => n.process.state !== 'down').map((n) => n.node);
  let ids = 0;
  const startNode = (slot: number, generation: number) => {
    const process = world.process(`node-${slot}`);
    const nodeId = `node-${slot}.${generation}`;
    const peers: PeerNetwork = { find: (owner, request, listener) => proxy(process, owner, request, listener) };
    const node = new ClusterNode({
      nodeId,
      config,
      shardCount,
      leaseMs,
      store: redis.client(process),
      peers,
      now: () => world.now,
      timers: world.timers(process),
      log: silentLog,
      environment: { newId: () => `${nodeId}-${++ids}`, random: world.random },
      onTerm: (term) => checks.term(term.shard, term.token, term.node),
      plantedBug: options.plantedBug,
    });
    live.set(`node-${slot}`, { node, process });
    processOfNode.set(node, process);
    node.start();
  };
  /** A find proxied from `from` to the owner node: a stream that breaks with either side. */
  const proxy = (from: SimProcess, owner: string, request: Parameters<ClusterNode['find']>[0], listener: TicketListener) => {
    const target = [...live.values()].find((n) => n.node.nodeId === owner && n.process.state !== 'down');
    if (!target) return listener.fail(new MatchmakingError('UNAVAILABLE', `owner ${owner} unreachable`, 250), request.ticketId);
    const stream = world.stream(from, target.process);
    let done = false;
    stream.onClose(from, () => !done && listener.fail(new MatchmakingError('UNAVAILABLE', `owner ${owner} went away`, 250), request.ticketId));
    stream.send(from, () =>
      target.node.find(
        request,
        {
          update: (update, ticketId) =>
            stream.send(target.process, () => {
              if (update.kind === 'assigned') done = true;
              listener.update(update, ticketId, owner);
            }),
          fail: (error, ticketId) =>
            stream.send(target.process, () => {
              done = true;
              listener.fail(error, ticketId);
            }),
        },
        true,
      ),
    );
  };
  const generations = new Map<number, number>();
  for (let slot = 0; slot < nodeCount; slot++) {
    generations.set(slot, 0);
    startNode(slot, 0);
  }

  // Game servers hosting every factory.
  const registry = new FactoryRegistry(config.templates, () => undefined);
  const hosted = registry.hostable(new Map(), []).map((f) => f.name);
  const byShard = new Map<number, string[]>();
  const anyNode = [...live.values()][0]!.node;
  for (const name of hosted) {
    const shard = anyNode.shardOf(name);
    byShard.set(shard, [...(byShard.get(shard) ?? []), name]);
  }
  const maxPlayersOf = (factory: string) => (factory.startsWith('coop') ? 4 : 1);
  const servers = new Map<string, SimGameServer>();
  for (let i = 0; i < (options.servers ?? 3); i++) {
    const server = new SimGameServer(world, `server-${i}`, options.gamesPerServer ?? 6, byShard, liveNodes, processOf, maxPlayersOf, checks);
    servers.set(server.serverId, server);
    server.start();
  }
  const clients = new SimClients(world, liveNodes, processOf, (id) => servers.get(id), checks);

  // Arrivals: one player each, over the duration.
  const durationMs = options.durationMs ?? 20_000;
  const ticketCount = options.tickets ?? 200;
  const sim = world.process('sim');
  const regions = ['eu', 'us', 'asia'];
  const modes = ['a', 'b'];
  const templates = options.templates ?? ['solo'];
  for (let t = 0; t < ticketCount; t++) {
    const at = 3_000 + Math.floor(world.random() * durationMs);
    const template = templates[Math.floor(world.random() * templates.length)]!;
    const region = regions[Math.floor(world.random() * regions.length)]!;
    const mode = modes[Math.floor(world.random() * modes.length)]!;
    world.after(sim, at, () => clients.arrive(`t${t}`, template, { region, mode }));
  }

  // Faults, at seeded times within the arrivals.
  const faults: string[] = [];
  for (let f = 0; f < (options.faults ?? 2); f++) {
    const at = 3_000 + Math.floor(world.random() * durationMs);
    const kind = Math.floor(world.random() * 4);
    const slot = Math.floor(world.random() * nodeCount);
    if (kind === 0) {
      const downMs = 200 + Math.floor(world.random() * 3_000);
      faults.push(`${at} ms: kill -9 node-${slot}, back after ${downMs} ms`);
      world.after(sim, at, () => {
        const process = world.process(`node-${slot}`);
        if (process.state === 'down') return;
        live.get(`node-${slot}`)!.node.stop();
        world.kill(process);
        world.after(sim, downMs, () => {
          world.revive(process);
          const generation = generations.get(slot)! + 1;
          generations.set(slot, generation);
          startNode(slot, generation);
        });
      });
    } else if (kind === 1) {
      const pauseMs = 500 + Math.floor(world.random() * 5_000);
      faults.push(`${at} ms: SIGSTOP node-${slot} for ${pauseMs} ms`);
      world.after(sim, at, () => {
        world.pause(world.process(`node-${slot}`));
        world.after(sim, pauseMs, () => world.resume(world.process(`node-${slot}`)));
      });
    } else {
      const mode = kind === 2 ? 'kept' : 'lost';
      const downMs = 100 + Math.floor(world.random() * 1_000);
      faults.push(`${at} ms: redis kill -9, restarted after ${downMs} ms ${mode === 'kept' ? 'with AOF always' : 'without persistence'}`);
      world.after(sim, at, () => redis.restart(mode, downMs));
    }
  }

  await world.runUntil(3_000 + durationMs + 30_000, () => steps++);
  for (const node of liveNodes()) node.stop();
  let assigned = 0;
  for (const [ticketId, ticket] of clients.tickets) {
    if (ticket.state === 'assigned') assigned++;
    else if (ticket.state === 'finding') checks.unanswered(ticketId, `finding after ${ticket.calls} calls: ${ticket.heard.join('; ')}`);
    else if (ticket.queued) checks.unanswered(ticketId, `ended after it was queued: ${ticket.error?.code} ${ticket.error?.message}`);
  }
  const stories: Record<string, readonly string[]> = {};
  for (const v of checks.violations) {
    for (const match of v.detail.matchAll(/ticket (t\d+)|player p-(t\d+)/g)) {
      const ticketId = (match[1] ?? match[2])!;
      const ticket = clients.tickets.get(ticketId);
      if (ticket) stories[ticketId] = ticket.heard;
    }
  }
  return { seed: options.seed, violations: checks.violations, assigned, tickets: clients.tickets.size, faults, steps, stories };
}

