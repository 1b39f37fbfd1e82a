import { coreEnvironment, type CoreEnvironment } from '../../app/build-core.js';
import type { CoordinatorConfig } from '../../config/config.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from '../../coordinator/messages.js';
import type { Log, Timers } from '../../coordinator/ports.js';
import { MatchmakingError } from '../../errors/index.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import { shardOfFactory } from '../../sharding/index.js';
import { ShardOwner } from '../owner/shard-owner.js';
import type { ShardStore, Term } from '../store/shard-store.js';
import { LeaseKeeper } from './lease-keeper.js';

/** How a node reaches another: a find it does not own goes to the shard's owner (a gRPC stream in production). */
export interface PeerNetwork {
  /** Proxies a find to `node`: its updates come back to `listener`; a broken stream fails it UNAVAILABLE. */
  find(node: string, request: FindRequest, listener: TicketListener): void;
}

/** What a node is built from: the same function builds a production node and a simulated one. */
export interface ClusterNodePorts {
  readonly nodeId: string;
  readonly config: CoordinatorConfig;
  readonly shardCount: number;
  readonly leaseMs: number;
  readonly store: ShardStore;
  readonly peers: PeerNetwork;
  readonly now: () => number;
  readonly timers: Timers;
  readonly log: Log;
  /** Ids and randomness for the cores (seeded in the simulator). */
  readonly environment?: Partial<CoreEnvironment>;
  /** The simulator's planted bug (ShardOwnerOptions.plantedBug). */
  readonly plantedBug?: 'forget-on-redis-restart';
  /** Told of every term this node takes (the simulator checks that tokens only go up). */
  readonly onTerm?: (term: Term) => void;
}

/** Asked again in a moment: no owner yet, or the owner is restoring. */
const noOwner = (shard: number) => new MatchmakingError('UNAVAILABLE', `shard ${shard} has no owner right now: call again with the same ticket id`, 250);

/**
 * One node of a cluster: "one road". It owns its share of the shards (LeaseKeeper) and, for each,
 * runs a ShardOwner holding everything live for it. A find for a shard it owns goes to that
 * shard's owner here; any other is proxied to the owner node, keeping no state. A game server links
 * to the owner of each shard it hosts, one stream per shard.
 */
export class ClusterNode {
  private readonly keeper: LeaseKeeper;
  private readonly owners = new Map<number, ShardOwner>();
  private readonly registry: FactoryRegistry<undefined>;
  private readonly environment: CoreEnvironment;
  private readonly shardOfName = new Map<string, number>();

  constructor(private readonly ports: ClusterNodePorts) {
    this.registry = new FactoryRegistry(ports.config.templates, () => undefined);
    this.environment = coreEnvironment(ports.config, { now: ports.now, timers: ports.timers, log: ports.log, ...ports.environment });
    this.keeper = new LeaseKeeper({
      nodeId: ports.nodeId,
      shardCount: ports.shardCount,
      leaseMs: ports.leaseMs,
      store: ports.store,
      now: ports.now,
      timers: ports.timers,
      log: ports.log,
      gained: (term) => void this.takeUp(term),
      lost: (term, reason) => this.ownerIn(term)?.stop(reason),
      retermed: (previous, next) => this.ownerIn(previous)?.reterm(next),
    });
  }

  get nodeId(): string {
    return this.ports.nodeId;
  }

  start(): void {
    this.keeper.start();
  }

  stop(): void {
    this.keeper.stop();
    for (const owner of this.owners.values()) owner.stop('the node stopped');
  }

  shardOf(factory: string): number {
    let shard = this.shardOfName.get(factory);
    if (shard === undefined) this.shardOfName.set(factory, (shard = shardOfFactory(factory, this.ports.shardCount)));
    return shard;
  }

  /** The node owning a shard, as this node last read it. */
  ownerOf(shard: number): string | undefined {
    return this.keeper.holderOf(shard);
  }

  /** Shards whose owner here is running (restored). */
  ownedShards(): number[] {
    return [...this.owners.keys()].filter((shard) => !this.owners.get(shard)!.isStopped);
  }

  /**
   * FindGame, from a client (`forwarded` false) or from a node proxying it here. Answers go to
   * `listener`: the assignment, an error, or UNAVAILABLE with a retry hint when the shard is moving.
   */
  find(request: FindRequest, listener: TicketListener, forwarded = false): void {
    let shard: number;
    try {
      shard = this.shardOf(this.registry.resolve(request.template, request.partition));
    } catch (error) {
      return listener.fail(error as MatchmakingError, request.ticketId);
    }
    const owner = this.runningOwner(shard);
    if (owner) {
      owner.find(request, listener).catch((error: unknown) => listener.fail(asError(error), request.ticketId));
      return;
    }
    const holder = this.keeper.holderOf(shard);
    if (forwarded || holder === undefined || holder === this.ports.nodeId) return listener.fail(noOwner(shard), request.ticketId);
    this.ports.peers.find(holder, request, listener);
  }

  /** A game server's link for one shard: only the shard's running owner takes it. */
  link(shard: number, hello: ServerHello, channel: ServerChannel): string[] {
    const owner = this.runningOwner(shard);
    if (!owner) {
      const holder = this.keeper.holderOf(shard);
      throw new MatchmakingError('FAILED_PRECONDITION', `shard ${shard} is not owned here${holder && holder !== this.ports.nodeId ? `: its owner is ${holder}` : ''}`);
    }
    return owner.link(hello, channel);
  }

  unlink(shard: number, serverId: string, channel: ServerChannel): void {
    this.owners.get(shard)?.unlink(serverId, channel);
  }

  serverEvent(shard: number, serverId: string, event: ServerEvent): void {
    this.runningOwner(shard)?.serverEvent(serverId, event);
  }

  /** The shard's owner here, if it runs under `term` (not an earlier or later one). */
  private ownerIn(term: Term): ShardOwner | undefined {
    const owner = this.owners.get(term.shard);
    return owner?.term.token === term.token ? owner : undefined;
  }

  private runningOwner(shard: number): ShardOwner | undefined {
    const owner = this.owners.get(shard);
    return owner && !owner.isStopped ? owner : undefined;
  }

  /** A new term: restore what was committed, then run the shard here. */
  private async takeUp(term: Term): Promise<void> {
    this.ports.onTerm?.(term);
    let restored;
    try {
      restored = await this.ports.store.restore(term.shard);
    } catch (error) {
      return this.keeper.relinquish(term, `restoring failed: ${(error as Error).message}`);
    }
    if (this.keeper.termOf(term.shard)?.token !== term.token) return;
    this.owners.get(term.shard)?.stop('a newer term');
    const owner = new ShardOwner({
      term,
      config: this.ports.config,
      environment: this.environment,
      store: this.ports.store,
      restored,
      serves: (factory) => this.shardOf(factory) === term.shard,
      awaitServersMs: 2 * this.ports.leaseMs,
      ended: (ended, reason) => this.keeper.relinquish(ended, reason),
      retake: (held) => this.keeper.retake(held),
      holding: (held) => this.keeper.holds(held),
      plantedBug: this.ports.plantedBug,
    });
    this.owners.set(term.shard, owner);
  }
}

function asError(error: unknown): MatchmakingError {
  return error instanceof MatchmakingError ? error : new MatchmakingError('UNAVAILABLE', `the shard's store failed: ${(error as Error).message}`, 250);
}
