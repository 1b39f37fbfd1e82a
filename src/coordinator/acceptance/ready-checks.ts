import { MatchmakingError } from '../../errors/index.js';
import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';
import type { MatchQualityFigures } from '../messages.js';
import type { Ticket } from '../tickets/ticket.js';
import type { TicketBook } from '../tickets/ticket-book.js';

/** A game formed by a batch that waits for every party to accept it. */
export interface Proposal {
  readonly matchId: string;
  readonly factory: string;
  /** Ticket ids by team, as the batch formed them. */
  readonly teams: readonly (readonly string[])[];
  readonly map: string | undefined;
  readonly region: string | undefined;
  readonly quality: MatchQualityFigures;
  readonly waitsMs: readonly number[];
  readonly gapInSigma: number;
  readonly expiresAt: number;
  readonly players: number;
  /** Tickets that accepted so far. */
  readonly accepted: Set<string>;
}

/** What one answer to a proposal did. */
export type Answer =
  | { readonly kind: 'waiting'; readonly proposal: Proposal }
  | { readonly kind: 'accepted'; readonly proposal: Proposal }
  | { readonly kind: 'declined'; readonly proposal: Proposal };

/**
 * The one owner of ready checks (GameLift FlexMatch's `acceptanceRequired`): a game a competitive
 * batch formed is proposed to its tickets, which leave the pool (`proposed`) and hear its match id;
 * nothing is ordered or reserved on a server until every ticket has accepted. Its deadline is on
 * the core's clock. Which tickets end and which go back to the pool when a match breaks is the
 * caller's (TicketDesk); this part only keeps the proposals and tells the tickets where they stand.
 */
export class ReadyChecks {
  private readonly proposals = new Map<string, Proposal>();
  /** Proposals waiting per factory (a factory with one is not idle), and their tickets. */
  private readonly perFactory = new Map<string, { proposals: number; tickets: number }>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly book: TicketBook,
  ) {}

  /** Proposals waiting in `factory`. */
  pending(factory: string): number {
    return this.perFactory.get(factory)?.proposals ?? 0;
  }

  /** Tickets of `factory` in a ready check: waiting, for QueryStats and the operator page. */
  ticketsIn(factory: string): number {
    return this.perFactory.get(factory)?.tickets ?? 0;
  }

  get size(): number {
    return this.proposals.size;
  }

  /** Proposes a formed game to its tickets (all pooled, out of the matcher), until `timeoutMs` from now. */
  propose(
    factory: string,
    teams: readonly (readonly Ticket[])[],
    formed: { map: string | undefined; region: string | undefined; quality: MatchQualityFigures; waitsMs: readonly number[]; gapInSigma: number },
    timeoutMs: number,
  ): Proposal {
    const matchId = this.ctx.newId();
    const tickets = teams.flat();
    const proposal: Proposal = {
      matchId,
      factory,
      teams: teams.map((team) => team.map((t) => t.id)),
      map: formed.map,
      region: formed.region,
      quality: formed.quality,
      waitsMs: formed.waitsMs,
      gapInSigma: formed.gapInSigma,
      expiresAt: this.ctx.now() + timeoutMs,
      players: tickets.reduce((n, t) => n + t.request.party.length, 0),
      accepted: new Set(),
    };
    this.proposals.set(matchId, proposal);
    const counts = this.perFactory.get(factory) ?? { proposals: 0, tickets: 0 };
    counts.proposals += 1;
    counts.tickets += tickets.length;
    this.perFactory.set(factory, counts);
    for (const ticket of tickets) this.book.propose(ticket.id, matchId);
    this.ctx.deadlines.set(DeadlineKind.Acceptance, matchId, proposal.expiresAt);
    this.ctx.out.event('matchProposed', { factory, matchId, ticketIds: proposal.teams.flat() });
    this.tellAll(proposal);
    return proposal;
  }

  /**
   * A ticket's answer. NOT_FOUND and FAILED_PRECONDITION name what is wrong; accepting twice is
   * harmless. The match is settled (taken out) when this answer declines it or completes it.
   */
  answer(ticket: Ticket, matchId: string, accept: boolean): Answer {
    const state = ticket.state;
    const proposal = this.proposals.get(matchId);
    if (state.kind !== 'proposed' || state.matchId !== matchId || !proposal) {
      throw new MatchmakingError('FAILED_PRECONDITION', `match_id: ticket "${ticket.id}" has no proposed match "${matchId.slice(0, 128)}" (it is ${state.kind})`);
    }
    if (!accept) {
      this.settle(proposal, 'declined');
      return { kind: 'declined', proposal };
    }
    proposal.accepted.add(ticket.id);
    if (proposal.accepted.size === proposal.teams.reduce((n, team) => n + team.length, 0)) {
      this.settle(proposal, 'accepted');
      return { kind: 'accepted', proposal };
    }
    this.tellAll(proposal);
    return { kind: 'waiting', proposal };
  }

  /** The match's time to accept is over: it is taken out and returned (undefined if already settled). */
  timedOut(matchId: string): Proposal | undefined {
    const proposal = this.proposals.get(matchId);
    if (proposal) this.settle(proposal, 'timed-out');
    return proposal;
  }

  /** A proposed ticket ended (cancelled, expired, its stream gone): its match breaks. */
  left(matchId: string): Proposal | undefined {
    const proposal = this.proposals.get(matchId);
    if (proposal) this.settle(proposal, 'left');
    return proposal;
  }

  /** A resumed ticket hears its proposal again. */
  remind(ticket: Ticket): void {
    const state = ticket.state;
    const proposal = state.kind === 'proposed' ? this.proposals.get(state.matchId) : undefined;
    if (proposal) this.tell(ticket, proposal);
  }

  private settle(proposal: Proposal, outcome: 'accepted' | 'declined' | 'timed-out' | 'left'): void {
    this.proposals.delete(proposal.matchId);
    const counts = this.perFactory.get(proposal.factory)!;
    counts.proposals -= 1;
    counts.tickets -= proposal.teams.reduce((n, team) => n + team.length, 0);
    if (counts.proposals === 0) this.perFactory.delete(proposal.factory);
    this.ctx.deadlines.delete(DeadlineKind.Acceptance, proposal.matchId);
    this.ctx.out.event('matchSettled', { factory: proposal.factory, matchId: proposal.matchId, outcome });
    if (outcome !== 'accepted') this.ctx.maybeIdle.add(proposal.factory);
  }

  private tellAll(proposal: Proposal): void {
    for (const team of proposal.teams) {
      for (const id of team) {
        const ticket = this.book.get(id);
        if (ticket) this.tell(ticket, proposal);
      }
    }
  }

  private tell(ticket: Ticket, proposal: Proposal): void {
    let acceptedPlayers = 0;
    for (const id of proposal.accepted) acceptedPlayers += this.book.get(id)?.request.party.length ?? 0;
    this.ctx.out.update(ticket.listener, ticket.id, {
      kind: 'proposed',
      proposal: {
        matchId: proposal.matchId,
        factory: proposal.factory,
        expiresInMs: Math.max(0, proposal.expiresAt - this.ctx.now()),
        players: proposal.players,
        acceptedPlayers,
      },
    });
  }
}
