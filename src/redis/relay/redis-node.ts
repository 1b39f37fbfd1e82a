import { randomUUID } from 'node:crypto';
import type { CorePlace } from '../../app/build-core.js';
import type { ReloadOutcome } from '../../coordinator/config-reload.js';
import type { CoreHost } from '../../app/core-host.js';
import type { CoordinatorConfig } from '../../config/config.js';
import type { CoordinatorCommands } from '../../coordinator/edges/commands.js';
import type { CoordinatorView } from '../../coordinator/edges/view.js';
import { realTimers, type Log } from '../../coordinator/ports.js';
import { connectRedis } from '../connect.js';
import { defineScripts, type RedisClient } from '../script-set.js';
import { RedisGatewayStore } from './gateway-store.js';
import { MatcherSeat } from './matcher-seat.js';
import { MatcherView } from './matcher-view.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { RedisOwnerStore } from './owner-store.js';
import { RelayGateway } from './relay-gateway.js';
import { relayKeys } from './relay-keys.js';
import { startClusterStats, type ClusterStatsPort } from '../stats/index.js';
import { stopWithin } from '../stop-within.js';

/** How long after a takeover a game server may still be reconnecting (the seat's default grace). */
const RECONNECT_GRACE_MS = 15_000;

export interface RedisNodeOptions {
  readonly url: string;
  readonly config: CoordinatorConfig;
  readonly log: Log;
  /** The matcher lease; the owner renews every third of it. Default 2000 ms (takeover < 3 s). */
  readonly leaseMs?: number;
  /** The node heartbeat's TTL, renewed every lease/3. Default: the lease (a dead node's servers leave the core within about 3 s). */
  readonly heartbeatMs?: number;
  /** Builds the core when this node takes the matcher (the process's builder and environment). */
  readonly build: (place: CorePlace) => CoreHost;
  /**
   * This node's client-facing address (`--advertise-address` or its default), undefined until
   * the gRPC port is bound. The sharded mode publishes it with the node's membership and names it
   * in the route hints of finds other nodes relay here; the relay mode does not use it.
   */
  readonly advertise?: () => string | undefined;
  /**
   * How long `stop` waits on Redis to let go cleanly (release the leases, delete the heartbeat)
   * before it drops its connections. Default: the lease, past which its leases have lapsed anyway.
   */
  readonly stopMs?: number;
}

export interface RedisNode {
  readonly nodeId: string;
  readonly commands: CoordinatorCommands;
  /** The matcher core's view while this node runs it; empty otherwise. */
  readonly view: CoordinatorView;
  /** The core this node runs, while it owns the matcher. */
  core(): CoreHost | undefined;
  /**
   * A reload of the node's file, applied to every core the node runs, whole or refused whole.
   * Absent: the process reloads `core()` (the relay's one matcher).
   */
  reload?(next: CoordinatorConfig): ReloadOutcome;
  /** QueryStats and the operator page's figures for the whole cluster (src/redis/stats). */
  readonly stats?: ClusterStatsPort;
  /** Called with true when Redis is reachable, false when not (health SERVING / NOT_SERVING). */
  onHealth(listener: (serving: boolean) => void): void;
  stop(): Promise<void>;
}

/**
 * A node of a cluster sharing one Redis (`--redis`): a gateway for its own clients and servers,
 * and a candidate for the matcher lease (src/redis/README.md, "How a ticket crosses nodes").
 */
export async function startRedisNode(options: RedisNodeOptions): Promise<RedisNode> {
  const nodeId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 2_000;
  const client = connectRedis(options.url);
  // ioredis emits connection errors; health and the calls' UNAVAILABLE answers report them.
  client.on('error', (error: Error) => options.log.debug({ error: error.message }, 'redis connection error'));
  await waitReady(client, options.log, options.url);
  await defineScripts(client);
  // Blocking reads hold their connection: the gateway and the seat get one each.
  const [gatewayReader, seatReader] = [0, 1].map(() => (client as { duplicate(): RedisClient }).duplicate());
  await Promise.all([gatewayReader, seatReader].map((c) => waitReady(c!, options.log, options.url)));
  const heartbeat = new NodeHeartbeat(client, nodeId, options.heartbeatMs ?? leaseMs);
  await heartbeat.start();
  const beat = Math.max(50, Math.floor(leaseMs / 3));
  const gateway = new RelayGateway(new RedisGatewayStore(client, gatewayReader!, nodeId, heartbeat), nodeId, options.config.templates, options.log, realTimers, beat);
  gateway.start();
  let core: CoreHost | undefined;
  /** When this node took up (or let go of) the matcher: its game servers reconnect in the seconds after. */
  let coreSince = 0;
  const ownerStore = await RedisOwnerStore.open(client, seatReader!, nodeId, leaseMs, options.config.placement.ticketTtlMs);
  const seat = new MatcherSeat(ownerStore, {
    nodeId,
    leaseMs,
    log: options.log,
    now: Date.now,
    timers: realTimers,
    build: options.build,
    onCore: (c) => {
      core = c;
      coreSince = Date.now();
    },
  });
  seat.start();
  // QueryStats and the operator page on any node: the matcher owner (named by its lease) answers.
  const view = new MatcherView(() => core?.view);
  const owner = async (): Promise<string | undefined> => {
    const held = await client.get(relayKeys.lease);
    return held ? held.slice(held.indexOf(':') + 1) : undefined;
  };
  const subscriber = (client as { duplicate(): RedisClient }).duplicate();
  subscriber.on('error', () => undefined);
  await waitReady(subscriber, options.log, options.url);
  const stats = await startClusterStats({
    client,
    subscriber,
    nodeId,
    view,
    running: () => core !== undefined,
    matcher: { since: () => coreSince, settleMs: RECONNECT_GRACE_MS },
    directory: { ownerOf: owner, owners: async () => [await owner()].filter((n) => n !== undefined) },
    templates: () => options.config.templates,
    log: options.log,
  });
  const healthListeners: ((serving: boolean) => void)[] = [];
  const report = (serving: boolean) => {
    for (const l of healthListeners) l(serving);
  };
  client.on('ready', () => {
    options.log.info({ node: nodeId }, 'redis reachable again');
    report(true);
  });
  client.on('close', () => report(false));
  client.on('reconnecting', () => report(false));
  options.log.info({ node: nodeId, redis: options.url, leaseMs }, 'joined the cluster');
  return {
    nodeId,
    commands: gateway,
    view,
    core: () => core,
    stats,
    onHealth(listener) {
      healthListeners.push(listener);
      listener(client.status === 'ready');
    },
    async stop() {
      await stopWithin(
        async () => {
          await stats.close();
          await seat.close();
          await gateway.close();
          client.disconnect();
        },
        options.stopMs ?? leaseMs,
        [client, gatewayReader!, seatReader!, subscriber],
        options.log,
        nodeId,
      );
    },
  };
}

/** The first connection: keeps trying (with the client's backoff) until Redis answers. */
export function waitReady(client: RedisClient, log: Log, url: string): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const warn = setInterval(() => log.warn({ redis: url, status: client.status }, 'waiting for redis'), 5_000);
    client.once('ready', () => {
      clearInterval(warn);
      resolve();
    });
  });
}
