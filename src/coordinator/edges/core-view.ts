import type { FactoryRegistry } from '../../factories/factory-registry.js';
import type { Placement } from '../../placement/index.js';
import type { BackfillDesk } from '../backfill/backfill-desk.js';
import type { FactoryRuntime } from '../factory-runtime.js';
import type { GameCreations } from '../game-creations.js';
import type { RunningGames } from '../servers/running-games.js';
import type { ServerRoster } from '../servers/server-roster.js';
import { queryStats, type StatsAnswer, type StatsQuery } from '../stats-query.js';
import type { ParkedTickets } from '../tickets/restored-tickets.js';
import type { TicketBook } from '../tickets/ticket-book.js';
import type { CoordinatorSnapshot, CoordinatorView, FactorySummary, ServerSummary, TicketSummary } from './view.js';

/** CoordinatorView over the owners of state: reads only. */
export class CoreView implements CoordinatorView {
  constructor(
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly roster: ServerRoster,
    private readonly games: RunningGames,
    private readonly book: TicketBook,
    private readonly creations: GameCreations,
    private readonly parked: ParkedTickets,
    private readonly placement: Placement,
    private readonly backfills?: BackfillDesk,
    /** Tickets in a ready check, per factory: they wait, out of the pool. */
    private readonly inReadyCheck: (factory: string) => number = () => 0,
  ) {}

  ticket(ticketId: string): TicketSummary | undefined {
    const t = this.book.get(ticketId);
    if (t) return { ticketId: t.id, factory: t.factory, state: t.state.kind, playerIds: t.playerIds, createdAt: t.createdAt, arrival: t.arrival };
    // An assigned ticket kept for retries holds no players (they were freed when it got its game).
    const a = this.book.answered(ticketId);
    return a && { ticketId: a.id, factory: a.factory, state: 'assigned', playerIds: [], createdAt: a.createdAt, arrival: a.arrival };
  }

  gameServer(gameId: string): string | undefined {
    return this.games.get(gameId)?.serverId;
  }

  factoryNames(): string[] {
    return [...this.registry.names()];
  }

  queuedIn(factory: string): number {
    return this.creations.waiting(factory);
  }

  freeSlots(): number {
    return this.placement.freeSlots();
  }

  servers(): ServerSummary[] {
    return [...this.roster.all()].map((s) => ({
      serverId: s.hello.serverId,
      endpoint: s.hello.endpoint,
      factories: s.factories,
      games: this.games.countOn(s.hello.serverId),
      starting: this.creations.inFlightCount(s.hello.serverId),
      capacity: this.roster.advertised(s.hello.serverId) ?? s.hello.capacity,
      backedOff: this.roster.resting(s.hello.serverId),
    }));
  }

  factories(now: number): FactorySummary[] {
    return this.factoryNames().map((name) => {
      const runtime = this.registry.get(name)!;
      return {
        name,
        template: runtime.identity.template.name,
        strategy: runtime.strategy,
        servers: this.registry.servers(name).size,
        pooled: runtime.waiting() + this.parked.count(name) + this.inReadyCheck(name),
        queued: this.creations.waiting(name),
        queuedTickets: this.creations.waitingTickets(name),
        openGames: runtime.openGames(),
        openSlots: runtime.stats([], 'all', now)?.openSlots ?? 0,
        competitive: runtime.competitiveStats(),
        ...(runtime.strategy === 'competitive' && this.backfills && { backfill: this.backfills.openIn(name) }),
      };
    });
  }

  queryStats(query: StatsQuery, now: number): StatsAnswer {
    return queryStats(this.registry, (name) => this.creations.waitingTickets(name) + this.inReadyCheck(name), query, now, this.backfills && ((name) => this.backfills!.openIn(name)));
  }

  snapshot(): CoordinatorSnapshot {
    return {
      servers: this.roster.size,
      factories: this.registry.size,
      games: this.games.count,
      tickets: this.book.size,
      ticketsByState: this.book.countsByState(),
      queued: this.creations.waiting(),
      openGames: [...this.registry.names()].reduce((n, f) => n + this.registry.get(f)!.openGames(), 0),
      ...(this.backfills && { backfillRequests: this.backfills.size }),
    };
  }
}
