import { credentials as grpcCredentials, Metadata, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { matchmakerClient } from '@gamefactory/protocol';
import type { FindGameRequest, MatchmakerClient } from '@gamefactory/protocol/v1/matchmaker';
import { findGameCall } from './find-game-call.js';
import type { FindGameCalls, FindGameHandlers } from './find-game-calls.js';

export interface NodeOptions {
  /** Coordinator nodes, host:port; any node of a cluster serves any ticket. */
  readonly addresses: string | readonly string[];
  /** Default: plaintext, for a coordinator in development mode on loopback. */
  readonly credentials?: ChannelCredentials;
  /** A player's or gateway's JWT, sent as `authorization: Bearer <token>` on every call. */
  readonly token?: string | (() => string);
  readonly channelOptions?: ChannelOptions;
}

/**
 * One gRPC client per coordinator node, made on first use; turns through them on failure. A route
 * hint may name a node by an address not configured (when the client allows that): it gets a
 * client of its own, outside the turn.
 */
export class CoordinatorNodes implements FindGameCalls {
  readonly addresses: readonly string[];
  private readonly clients = new Map<string, MatchmakerClient>();
  private turn = 0;

  constructor(private readonly options: NodeOptions) {
    this.addresses = typeof options.addresses === 'string' ? [options.addresses] : [...options.addresses];
    if (this.addresses.length === 0) throw new Error('addresses: name at least one coordinator (host:port)');
  }

  client(node: number): MatchmakerClient {
    return this.clientAt(this.address(node));
  }

  /** The client of the node at `address`, configured or named by a route hint. */
  clientAt(address: string): MatchmakerClient {
    let client = this.clients.get(address);
    if (!client) {
      client = matchmakerClient(address, this.options.credentials ?? grpcCredentials.createInsecure(), this.options.channelOptions ?? {});
      this.clients.set(address, client);
    }
    return client;
  }

  address(node: number): string {
    return this.addresses[node % this.addresses.length]!;
  }

  /** The place of `address` among the configured ones, -1 if it is not one. */
  indexOf(address: string): number {
    return this.addresses.indexOf(address);
  }

  /** The node for a new ticket: each in turn, so tickets spread over the cluster. */
  nextNode(): number {
    return this.turn++ % this.addresses.length;
  }

  findGame(address: string, request: FindGameRequest, handlers: FindGameHandlers): { cancel(): void } {
    return findGameCall(this.clientAt(address), request, this.metadata(), handlers);
  }

  cancelFind(address: string, ticketId: string): Promise<boolean | undefined> {
    return new Promise((resolve) => {
      this.clientAt(address).cancelFind({ ticketId }, this.metadata(), (error, response) => resolve(error ? undefined : response.cancelled));
    });
  }

  metadata(): Metadata {
    const metadata = new Metadata();
    const token = typeof this.options.token === 'function' ? this.options.token() : this.options.token;
    if (token) metadata.set('authorization', `Bearer ${token}`);
    return metadata;
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
  }
}
