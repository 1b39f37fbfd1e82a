import type { Coordinator } from '../coordinator/coordinator.js';
import type { CoordinatorObserver } from '../coordinator/ports.js';
import type { PlacementPort, ServerCapacity } from '../placement/index.js';
import type { FactorySnapshot, OperatorEvent, OperatorSource, ServerSnapshot } from './operator-source.js';

interface ServerSlots {
  factories: number;
  capacity: ServerCapacity;
  running: number;
  starting: number;
  restingUntil: number;
}

/**
 * The one place the operator page meets today's coordinator (issue 16): factories are read from
 * Coordinator's registry, servers from a tap on the placement port (the coordinator keeps its
 * servers private), events from a tee of the observer. Rewire this file, and only this file,
 * when the coordinator's read-only view and typed events land.
 */
export class CoordinatorOperatorSource implements OperatorSource {
  private coordinator: Coordinator | undefined;
  private readonly servers = new Map<string, ServerSlots>();
  private readonly listeners = new Set<(event: OperatorEvent) => void>();

  constructor(private readonly now: () => number) {}

  attach(coordinator: Coordinator): void {
    this.coordinator = coordinator;
  }

  subscribe(listener: (event: OperatorEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(now: number) {
    const c = this.coordinator;
    const factories: FactorySnapshot[] = [];
    for (const name of c?.factoryNames() ?? []) {
      const runtime = c!.runtime(name)!;
      const queueLength = c!.queuedIn(name);
      const coop = runtime.stats([], 'all', now);
      const quality = runtime.competitiveStats();
      factories.push({
        name,
        template: runtime.identity.template.name,
        strategy: runtime.strategy,
        waitingTickets: runtime.waiting() + queueLength,
        queueLength,
        openGames: coop?.openGames ?? runtime.openGames(),
        openSlots: coop?.openSlots ?? 0,
        servers: c!.registry().servers(name).size,
        gap: quality && { gamesFormed: quality.gamesFormed, meanSigma: quality.meanGapInSigma, p99Sigma: quality.p99GapInSigma },
      });
    }
    const servers: ServerSnapshot[] = [];
    for (const [serverId, s] of this.servers) {
      const resting = now < s.restingUntil;
      servers.push({
        serverId,
        factories: s.factories,
        maxGames: s.capacity.maxGames,
        maxStartsPerSecond: s.capacity.maxStartsPerSecond,
        running: s.running,
        starting: s.starting,
        health: resting ? 'backed-off' : s.running + s.starting >= s.capacity.maxGames ? 'full' : 'ok',
      });
    }
    return { factories, servers };
  }

  /** Forwards every observer call to `inner` and turns the ones the page needs into events. */
  tee(inner: CoordinatorObserver): CoordinatorObserver {
    return {
      findFinished: (factory, outcome, elapsedMs) => {
        inner.findFinished(factory, outcome, elapsedMs);
        this.emit({ kind: 'find-finished', factory, outcome, elapsedMs });
      },
      placed: (factory) => {
        inner.placed(factory);
        this.emit({ kind: 'placed', factory });
      },
      requeued: (factory, cause) => inner.requeued(factory, cause),
      serverMessageRejected: (reason) => inner.serverMessageRejected(reason),
      dequeued: (factory, waitedMs) => inner.dequeued(factory, waitedMs),
      competitiveGameFormed: (factory, gapInSigma, waitsMs) => {
        inner.competitiveGameFormed(factory, gapInSigma, waitsMs);
        if (Number.isFinite(gapInSigma)) this.emit({ kind: 'game-formed', factory, gapInSigma });
      },
      serverBackedOff: (serverId, backoffMs) => {
        inner.serverBackedOff(serverId, backoffMs);
        const s = this.servers.get(serverId);
        if (s) s.restingUntil = this.now() + backoffMs;
      },
    };
  }

  /**
   * Forwards every placement call to `inner`, keeping each server's advertised slots and counts.
   * Every answer goes through exactly one `then`, so answers keep the order they had without the tap.
   */
  tap(inner: PlacementPort): PlacementPort {
    const servers = this.servers;
    const starting = (serverId: string, delta: number) => {
      const s = servers.get(serverId);
      if (s) s.starting = Math.max(0, s.starting + delta);
    };
    const emit = (event: OperatorEvent) => this.emit(event);
    const now = this.now;
    const pass = <T>(answer: Promise<T>, seen?: (value: T) => void): Promise<T> =>
      answer.then((value) => {
        seen?.(value);
        return value;
      });
    return {
      addServer(serverId, factories, capacity, runningGames) {
        servers.set(serverId, { factories: factories.length, capacity, running: runningGames, starting: 0, restingUntil: 0 });
        return pass(inner.addServer(serverId, factories, capacity, runningGames));
      },
      removeServer(serverId) {
        servers.delete(serverId);
        return pass(inner.removeServer(serverId));
      },
      setCapacity(serverId, capacity) {
        const s = servers.get(serverId);
        // The breaker zeroes a resting server's capacity; the page keeps showing what it advertised.
        if (s && !(capacity.maxGames === 0 && now() < s.restingUntil)) s.capacity = capacity;
        return pass(inner.setCapacity(serverId, capacity));
      },
      gameEnded(serverId) {
        const s = servers.get(serverId);
        if (s) s.running = Math.max(0, s.running - 1);
        return pass(inner.gameEnded(serverId));
      },
      recordDemand: (factory) => pass(inner.recordDemand(factory)),
      place: (factory, requestId, priority) =>
        pass(inner.place(factory, requestId, priority), (placed) => {
          if ('serverId' in placed) starting(placed.serverId, +1);
        }),
      confirm(serverId) {
        const s = servers.get(serverId);
        if (s) s.running += 1;
        starting(serverId, -1);
        emit({ kind: 'game-started', serverId });
        return pass(inner.confirm(serverId));
      },
      release(serverId) {
        starting(serverId, -1);
        return pass(inner.release(serverId));
      },
      withdraw: (requestId) => pass(inner.withdraw(requestId)),
      drain: () =>
        pass(inner.drain(), (drained) => {
          for (const p of drained.placed) starting(p.serverId, +1);
        }),
      position: (requestId) => pass(inner.position(requestId)),
      head: (factory, count) => pass(inner.head(factory, count)),
      depth: (factory) => pass(inner.depth(factory)),
      freeSlots: (factory) => pass(inner.freeSlots(factory)),
    };
  }

  private emit(event: OperatorEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
