import { valueKey } from '../../attributes/attribute-value.js';
import type { FindRequest, TicketListener } from '../../coordinator/messages.js';
import type { MatchmakingError } from '../../errors/index.js';
import type { ClusterNode } from '../node/cluster-node.js';
import type { SimChecks } from './sim-checks.js';
import type { SimGameServer } from './sim-game-server.js';
import type { SimProcess, SimStream, SimWorld } from './world.js';

interface Ticket {
  readonly request: FindRequest;
  state: 'finding' | 'assigned' | 'ended';
  /** The call in progress: answers of earlier calls are ignored. */
  call: number;
  stream: SimStream | undefined;
  calls: number;
  /** Told `queued` at least once: from then on only an assignment, its own cancel or its TTL may end it. */
  queued: boolean;
  /** How it ended without an assignment. */
  error?: MatchmakingError;
  /** What it heard, for a failing seed's story. */
  readonly heard: string[];
}

/**
 * Players' clients: each ticket calls FindGame on a node picked at random and, when its stream
 * breaks or it is told UNAVAILABLE, calls again with the same ticket id on another (as the
 * matchmaking client resumes); once assigned, its players go to the game server.
 */
export class SimClients {
  readonly process: SimProcess;
  readonly tickets = new Map<string, Ticket>();

  constructor(
    private readonly world: SimWorld,
    private readonly nodes: () => readonly ClusterNode[],
    private readonly processOf: (node: ClusterNode) => SimProcess,
    private readonly server: (serverId: string) => SimGameServer | undefined,
    private readonly checks: SimChecks,
  ) {
    this.process = world.process('clients');
  }

  /** A new ticket of one player for `template` in `region`, arriving now. */
  arrive(ticketId: string, template: string, partition: Record<string, string>): void {
    const request: FindRequest = {
      ticketId,
      template,
      party: [{ playerId: `p-${ticketId}`, score: undefined }],
      partition: new Map(Object.entries(partition).map(([k, v]) => [k, valueKey({ kind: 'string', value: v })])),
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
    const ticket: Ticket = { request, state: 'finding', call: 0, stream: undefined, calls: 0, queued: false, heard: [] };
    this.tickets.set(ticketId, ticket);
    this.call(ticket);
  }

  private call(ticket: Ticket): void {
    if (ticket.state !== 'finding') return;
    ticket.stream?.close(this.process, 'calling again');
    const live = this.nodes();
    if (live.length === 0) return this.again(ticket, 250);
    const node = live[Math.floor(this.world.random() * live.length)]!;
    const nodeProcess = this.processOf(node);
    const call = ++ticket.call;
    ticket.calls++;
    const stream = this.world.stream(this.process, nodeProcess);
    ticket.stream = stream;
    const current = () => ticket.call === call && ticket.state === 'finding';
    const listener: TicketListener = {
      update: (update) =>
        stream.send(nodeProcess, () => {
          ticket.heard.push(`${this.world.now} call ${call} via ${node.nodeId}: ${update.kind}${current() ? '' : ' (ignored)'}`);
          if (!current()) return;
          if (update.kind !== 'assigned') return void (ticket.queued = true);
          ticket.state = 'assigned';
          const { serverId, gameId } = update.assignment;
          this.checks.assigned(ticket.request.ticketId, serverId, gameId, ticket.request.party.map((p) => p.playerId));
          stream.close(this.process, 'answered');
          const server = this.server(serverId);
          if (server) for (const p of ticket.request.party) this.world.send(this.process, server.process, () => server.join(gameId, p.playerId));
        }),
      fail: (error: MatchmakingError) =>
        stream.send(nodeProcess, () => {
          ticket.heard.push(`${this.world.now} call ${call} via ${node.nodeId}: ${error.code} ${error.message}${current() ? '' : ' (ignored)'}`);
          if (!current()) return;
          if (error.code === 'UNAVAILABLE') return this.again(ticket, error.retryAfterMs ?? 250);
          ticket.state = 'ended';
          ticket.error = error;
        }),
    };
    stream.onClose(this.process, (reason) => {
      ticket.heard.push(`${this.world.now} call ${call} via ${node.nodeId}: stream closed (${reason})`);
      if (current()) this.again(ticket, 100);
    });
    ticket.heard.push(`${this.world.now} call ${call} to ${node.nodeId}`);
    stream.send(this.process, () => node.find(ticket.request, listener));
  }

  private again(ticket: Ticket, ms: number): void {
    const call = ticket.call;
    this.world.after(this.process, ms + Math.floor(this.world.random() * ms), () => ticket.call === call && this.call(ticket));
  }
}
