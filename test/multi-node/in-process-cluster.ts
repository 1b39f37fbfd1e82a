import { buildCore, coreEnvironment, type CoreEnvironment } from '../../src/app/build-core.js';
import type { CoreHost } from '../../src/app/core-host.js';
import { valueKey } from '../../src/attributes/attribute-value.js';
import type { CoordinatorConfig } from '../../src/config/config.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, RunningGame, ServerChannel, ServerOrder, TicketListener, TicketUpdate } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import type { MatchmakingError } from '../../src/errors/index.js';
import { MatcherSeat } from '../../src/redis/relay/matcher-seat.js';
import type { OwnerStore } from '../../src/redis/relay/owner-store.js';
import { RelayGateway } from '../../src/redis/relay/relay-gateway.js';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay } from './fake-relay.js';

export const LEASE_MS = 2000;

/** One-player games of the `solo` template in region eu: what `Player.request()` asks for. */
export const SOLO_CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`);
const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

/**
 * One node of a cluster in this process: its gateway and its matcher seat on a FakeRelay, on the
 * test's manual timers, nothing started on its own: the test moves it (`keepLease`, `step`,
 * `pump`, `watch`).
 */
/** One relay on a manual clock, and an in-process node on it for each id, in order. */
export function relayWorld<const Ids extends readonly string[]>(config: CoordinatorConfig, ...ids: Ids): { timers: ManualTimers; relay: FakeRelay; nodes: { [K in keyof Ids]: InProcessNode } } {
  const timers = new ManualTimers();
  const relay = new FakeRelay(() => timers.now);
  return { timers, relay, nodes: ids.map((id) => InProcessNode.make(id, relay, timers, config)) as { [K in keyof Ids]: InProcessNode } };
}

export class InProcessNode {
  readonly gateway: RelayGateway;
  readonly seat: MatcherSeat;
  core: CoreHost | undefined;

  constructor(
    readonly id: string,
    relay: FakeRelay,
    timers: ManualTimers,
    config: CoordinatorConfig,
    /** The process's environment (ratings, workers, event hub): what every core it builds shares. */
    readonly environment: CoreEnvironment,
    ownerStore: OwnerStore = relay.owner(id, LEASE_MS),
  ) {
    this.gateway = new RelayGateway(relay.gateway(id, LEASE_MS), id, config.templates, silentLog, timers, LEASE_MS / 3);
    this.seat = new MatcherSeat(ownerStore, {
      nodeId: id,
      leaseMs: LEASE_MS,
      log: silentLog,
      now: () => timers.now,
      timers,
      build: (place) => buildCore(config, environment, place),
      onCore: (core) => (this.core = core),
    });
  }

  static make(id: string, relay: FakeRelay, timers: ManualTimers, config: CoordinatorConfig, ownerStore?: OwnerStore): InProcessNode {
    let n = 0;
    const environment = coreEnvironment(config, { now: () => timers.now, timers, log: silentLog, newId: () => `${id}-${++n}`, random: () => 0.5 });
    return new InProcessNode(id, relay, timers, config, environment, ownerStore);
  }
}

/** Lets a frozen call (a killed node's) stay pending while everything else settles. */
export function settled<T>(work: Promise<T>): Promise<T | undefined> {
  return Promise.race([work, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
}

/** Moves every live node until nothing is left to read: owners apply their inbox, gateways deliver answers. */
export async function settle(nodes: readonly InProcessNode[]): Promise<void> {
  for (let round = 0; round < 50; round++) {
    let moved = 0;
    for (const node of nodes) {
      moved += (await settled(node.seat.step(0))) ?? 0;
      moved += (await settled(node.gateway.pump(0))) ?? 0;
    }
    if (moved === 0) return;
  }
  throw new Error('the cluster did not settle in 50 rounds');
}

export class Player implements TicketListener {
  readonly updates: TicketUpdate[] = [];
  readonly errors: MatchmakingError[] = [];
  constructor(readonly ticketId: string) {}
  update(update: TicketUpdate): void {
    this.updates.push(update);
  }
  fail(error: MatchmakingError): void {
    this.errors.push(error);
  }
  get assignments() {
    return this.updates.flatMap((u) => (u.kind === 'assigned' ? [u.assignment] : []));
  }
  request(): FindRequest {
    return {
      ticketId: this.ticketId,
      template: 'solo',
      party: [{ playerId: `p-${this.ticketId}`, score: undefined }],
      partition: EU,
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
  }
}

/** A game server on a node's gateway; it reconnects (hello again) when its stream is closed. */
export class Server {
  orders: ServerOrder[] = [];
  closes = 0;
  /** Announced in every hello, as a server re-announces the games it runs after a reconnect. */
  runningGames: RunningGame[] = [];
  private channel: ServerChannel | undefined;
  private node: InProcessNode | undefined;

  constructor(
    readonly serverId: string,
    public maxGames: number,
  ) {}

  connect(node: InProcessNode): void {
    this.node = node;
    this.orders = [];
    const channel: ServerChannel = {
      send: (order) => this.channel === channel && this.orders.push(order),
      close: () => {
        if (this.channel !== channel) return;
        this.closes++;
        this.channel = undefined;
      },
    };
    this.channel = channel;
    node.gateway.connectServer(
      { serverId: this.serverId, endpoint: `${this.serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames: this.maxGames, maxStartsPerSecond: 0 }, runningGames: this.runningGames },
      channel,
    );
  }

  get connected(): boolean {
    return this.channel !== undefined;
  }

  /** Reconnects through the same node if its stream was closed. */
  reconnectIfClosed(): void {
    if (!this.channel && this.node) this.connect(this.node);
  }

  creates() {
    return this.orders.filter((o): o is Extract<ServerOrder, { kind: 'createGame' }> => o.kind === 'createGame');
  }

  /** Confirms every creation ordered since it connected. */
  confirmAll(): void {
    for (const order of this.creates()) this.node!.gateway.onServerEvent(this.serverId, { kind: 'gameCreated', requestId: order.requestId, gameId: `g-${order.playerIds[0]}` });
    this.orders = this.orders.filter((o) => o.kind !== 'createGame');
  }
}
