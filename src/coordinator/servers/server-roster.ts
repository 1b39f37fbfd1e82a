import type { MatchmakingError } from '../../errors/index.js';
import type { ServerCapacity } from '../../placement/index.js';
import type { CoreContext } from '../core-context.js';
import type { ServerChannel, ServerHello, ServerOrder } from '../messages.js';
import { ServerBreakers } from './server-breakers.js';

export interface ConnectedServer {
  readonly hello: ServerHello;
  readonly channel: ServerChannel;
  readonly factories: readonly string[];
}

/**
 * The one owner of connected game servers: each server's link, advertised capacity and health
 * (the circuit breaker). Orders leave as effects with an id that makes a repeat harmless; the edge
 * delivers them wherever the server's stream is. The games a server runs are RunningGames'.
 */
export class ServerRoster {
  private readonly servers = new Map<string, ConnectedServer>();
  private readonly health: ServerBreakers;
  private orderSeq = 0;

  constructor(private readonly ctx: CoreContext) {
    this.health = new ServerBreakers(ctx);
  }

  get size(): number {
    return this.servers.size;
  }

  get(serverId: string): ConnectedServer | undefined {
    return this.servers.get(serverId);
  }

  all(): IterableIterator<ConnectedServer> {
    return this.servers.values();
  }

  /** Adds a server that said hello (the previous connection with its id must be removed first). */
  connect(hello: ServerHello, channel: ServerChannel, factories: readonly string[]): ConnectedServer {
    const server: ConnectedServer = { hello, channel, factories };
    this.servers.set(hello.serverId, server);
    this.ctx.out.push({ kind: 'link', serverId: hello.serverId, channel });
    this.health.add(hello.serverId, hello.capacity);
    return server;
  }

  /** A connected server serves more factories (a config reload made them). */
  serveMore(serverId: string, factories: readonly string[]): void {
    const server = this.servers.get(serverId);
    if (server) this.servers.set(serverId, { ...server, factories: [...server.factories, ...factories] });
  }

  /** Removes the server (its games are RunningGames' to end). */
  remove(serverId: string): ConnectedServer | undefined {
    const server = this.servers.get(serverId);
    if (!server) return undefined;
    this.servers.delete(serverId);
    this.ctx.out.push({ kind: 'unlink', serverId, channel: server.channel });
    this.health.remove(serverId);
    return server;
  }

  /** Ends a server's stream (a newer connection replaced it). */
  close(server: ConnectedServer, error: MatchmakingError): void {
    this.ctx.out.push({ kind: 'close', serverId: server.hello.serverId, channel: server.channel, error });
  }

  endpoint(serverId: string): string | undefined {
    return this.servers.get(serverId)?.hello.endpoint;
  }

  /**
   * Sends an order to the server wherever its stream is. `orderId` makes a repeat harmless;
   * orders that are not repeated (rejections) get a fresh one.
   */
  send(serverId: string, order: ServerOrder, orderId = `${serverId}#${++this.orderSeq}`): void {
    this.ctx.out.order(serverId, orderId, order);
  }

  // ---------------------------------------------------------------- health

  advertised(serverId: string): ServerCapacity | undefined {
    return this.health.advertised(serverId);
  }

  resting(serverId: string): boolean {
    return this.health.resting(serverId);
  }

  /** The server advertised a new capacity: what placement should see now, unless it rests. */
  capacityChanged(serverId: string, capacity: ServerCapacity): ServerCapacity | undefined {
    return this.health.advertise(serverId, capacity);
  }

  creationSucceeded(serverId: string): void {
    this.health.succeeded(serverId);
  }

  /** A creation failed: the capacity placement should see if the server now rests. */
  creationFailed(serverId: string): ServerCapacity | undefined {
    return this.health.failed(serverId);
  }

  /** Its rest is over: the capacity placement should see again. */
  rested(serverId: string): ServerCapacity | undefined {
    return this.health.rested(serverId);
  }
}
