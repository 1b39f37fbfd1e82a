import { credentials, status } from '@grpc/grpc-js';
import { RatingsReader } from '@gamefactory/protocol';
import type { Rating } from '@gamefactory/protocol/v1/ratings';
import { randomUUID } from 'node:crypto';
import { CoordinatorNodes, type NodeOptions } from './coordinator-nodes.js';
import { FindError } from './find-error.js';
import type { FindRequest } from './find-request.js';
import { openTicket, type FindOptions } from './find-ticket.js';
import type { Ticket } from './ticket.js';
import { TicketCalls } from './ticket-calls.js';
import { TicketStream } from './ticket-stream.js';
import { RoutedStreams } from './routed-streams.js';
import { RouteTable, isHostPort } from './route-table.js';
import type { ResumeOptions, TicketTransport } from './transport.js';

export interface MatchmakerOptions extends NodeOptions {
  /**
   * Every ticket over one FindGames stream (gateways and frontends that speak for many players),
   * instead of a FindGame call per ticket (a player's own client). Default false.
   */
  readonly multiplex?: boolean;
  /** With `multiplex`: the finds and cancels of one tick in one message (default true). */
  readonly batch?: boolean;
  /** How a ticket whose node failed is sent again: backoff, and when to give up. */
  readonly resume?: ResumeOptions;
  /**
   * Follow route hints (default true): in a sharded cluster, a node that relays a find to the
   * node owning its factory names that owner in the answer; the client then sends its next finds
   * of the same template and partition to the owner first, where they cost the cluster about
   * half as much. Only owners among `addresses` are followed unless `followUnlistedOwners`; a
   * ticket whose owner fails resumes on the other nodes as any other does.
   */
  readonly followOwner?: boolean;
  /**
   * Also follow hints that name a node not in `addresses` (default false): the client then
   * connects wherever a coordinator says, with the same credentials and token. Only for
   * coordinators trusted as much as the configured ones (e.g. behind the same TLS authority).
   */
  readonly followUnlistedOwners?: boolean;
}

/**
 * A client of the coordinator's Matchmaker service, for players' clients and gateways.
 *
 * ```ts
 * const matchmaker = new Matchmaker({ addresses: ['127.0.0.1:50051'] });
 * const ticket = matchmaker.find({ template: 'diablo', party: ['alice'], partition: { difficulty: 'hard' } });
 * for await (const update of ticket) console.log(update);
 * ```
 */
export class Matchmaker {
  private readonly nodes: CoordinatorNodes;
  private readonly transport: TicketTransport;
  private readonly ratings: RatingsReader;

  constructor(options: MatchmakerOptions) {
    this.nodes = new CoordinatorNodes(options);
    this.ratings = new RatingsReader(() => this.nodes.address(0), options.credentials ?? credentials.createInsecure(), options.channelOptions ?? {}, () => this.nodes.metadata());
    const resume = options.resume ?? {};
    const batch = options.batch !== false;
    const routes = ownerRoutes(this.nodes, options);
    this.transport = options.multiplex
      ? routes
        ? new RoutedStreams(this.nodes, resume, batch, routes)
        : new TicketStream(this.nodes, resume, batch)
      : new TicketCalls(this.nodes, resume, routes);
  }

  /** Starts finding a game for a party; the ticket reports its progress and its assignment. */
  find(request: FindRequest, options: FindOptions = {}): Ticket {
    return openTicket(this.transport, request.ticketId ?? randomUUID(), request, options);
  }

  /**
   * Cancels a ticket by id, for a gateway that kept the id rather than the Ticket (another process,
   * a restart). True when a ticket was waiting under that id on the node asked.
   */
  cancel(ticketId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.nodes.client(0).cancelFind({ ticketId }, this.nodes.metadata(), (error, response) =>
        error ? reject(FindError.fromStatus(ticketId, error)) : resolve(response.cancelled),
      );
    });
  }

  /**
   * Answers a ready check (a ticket's `proposed` update): accept or decline match `matchId`.
   * True once every party has accepted. Fails with the coordinator's status: NOT_FOUND (no such
   * ticket), FAILED_PRECONDITION (the match is over: broken by another's decline or the timeout),
   * PERMISSION_DENIED (not the ticket's owner).
   */
  respondToMatch(ticketId: string, matchId: string, accept: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.nodes.client(0).respondToMatch({ ticketId, matchId, accept }, this.nodes.metadata(), (error, response) =>
        error ? reject(FindError.fromStatus(ticketId, error)) : resolve(response.matchComplete),
      );
    });
  }

  /**
   * A player's rating on a ladder (Ratings.GetRating): `mean` and `deviation` in the ladder's units,
   * `standing` what its leaderboard orders by; undefined for a player not rated yet.
   */
  rating(ladder: string, playerId: string): Promise<Rating | undefined> {
    return this.ratings.rating(ladder, playerId);
  }

  /** Hangs up: tickets still waiting fail with CANCELLED (and the coordinator cancels them). */
  close(): void {
    this.ratings.close();
    this.transport.close();
    this.nodes.close();
  }
}

/** The route table, when there is anywhere else to go: several addresses, or any address a hint names. */
function ownerRoutes(nodes: CoordinatorNodes, options: MatchmakerOptions): RouteTable | undefined {
  if (options.followOwner === false) return undefined;
  if (options.followUnlistedOwners) return new RouteTable(isHostPort);
  if (nodes.addresses.length < 2) return undefined;
  const listed = new Set(nodes.addresses);
  return new RouteTable((address) => listed.has(address));
}
