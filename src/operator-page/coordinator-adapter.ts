import type { CoordinatorEvents, CoordinatorView } from '../coordinator/edges/index.js';
import type { FactorySnapshot, OperatorEvent, OperatorSource, ServerSnapshot } from './operator-source.js';

/**
 * The one place the operator page meets the coordinator: snapshots from the read-only
 * CoordinatorView, events from CoordinatorEvents. Nothing private is copied (no tickets, no
 * player ids).
 */
export class CoordinatorOperatorSource implements OperatorSource {
  private readonly listeners = new Set<(event: OperatorEvent) => void>();
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly view: CoordinatorView,
    events: CoordinatorEvents,
  ) {
    // No page open, no event built: findFinished comes once per ticket.
    this.unsubscribe = [
      events.on('findFinished', (e) => this.listeners.size > 0 && this.emit({ kind: 'find-finished', factory: e.factory, outcome: e.outcome, elapsedMs: e.elapsedMs })),
      events.on('placed', (e) => this.listeners.size > 0 && this.emit({ kind: 'placed', factory: e.factory })),
      events.on('gameStarted', (e) => this.listeners.size > 0 && this.emit({ kind: 'game-started', serverId: e.serverId })),
      events.on('competitiveGameFormed', (e) => {
        if (Number.isFinite(e.gapInSigma)) {
          this.emit({ kind: 'game-formed', factory: e.factory, gapInSigma: e.gapInSigma, favouriteWinProbability: e.favouriteWinProbability });
        }
      }),
    ];
  }

  subscribe(listener: (event: OperatorEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(now: number) {
    const factories: FactorySnapshot[] = this.view.factories(now).map((f) => ({
      name: f.name,
      template: f.template,
      strategy: f.strategy,
      waitingTickets: f.pooled + f.queuedTickets,
      queueLength: f.queued,
      openGames: f.openGames,
      openSlots: f.openSlots,
      servers: f.servers,
      gap: f.competitive && { gamesFormed: f.competitive.gamesFormed, meanSigma: f.competitive.meanGapInSigma, p99Sigma: f.competitive.p99GapInSigma },
      ...(f.backfill && { backfill: f.backfill }),
    }));
    const servers: ServerSnapshot[] = this.view.servers().map((s) => ({
      serverId: s.serverId,
      factories: s.factories.length,
      maxGames: s.capacity.maxGames,
      maxStartsPerSecond: s.capacity.maxStartsPerSecond,
      running: s.games,
      starting: s.starting,
      health: s.backedOff ? 'backed-off' : s.games + s.starting >= s.capacity.maxGames ? 'full' : 'ok',
    }));
    return { factories, servers };
  }

  close(): void {
    for (const off of this.unsubscribe) off();
  }

  private emit(event: OperatorEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
