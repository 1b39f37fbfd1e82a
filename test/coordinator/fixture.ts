import { buildCore, coreEnvironment, type CoreEnvironment, type CorePlace } from '../../src/app/build-core.js';
import { valueKey, type AttributeSet } from '../../src/attributes/attribute-value.js';
import type { CoordinatorConfig } from '../../src/config/config.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, ServerChannel, ServerOrder, TicketListener, TicketUpdate } from '../../src/coordinator/messages.js';
import { silentLog, type TicketRecord, type TicketStore, type Timers } from '../../src/coordinator/ports.js';
import type { MatchmakingError } from '../../src/errors/index.js';

/** Timers on a manual clock: nothing happens until the test advances time. */
export class ManualTimers implements Timers {
  now = 1_000_000;
  private tasks: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  /** Timers set and not yet run or cancelled. */
  get pending(): number {
    return this.tasks.length;
  }

  set(fn: () => void, ms: number): () => void {
    const task = { at: this.now + Math.max(0, ms), seq: this.seq++, fn };
    this.tasks.push(task);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }

  /** Moves the clock forward, running what falls due in time order (and settling promises between: a result write answers on a later microtask). */
  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      await settle();
      const due = this.tasks.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.tasks = this.tasks.filter((t) => t !== due);
      this.now = due.at;
      due.fn();
    }
    this.now = until;
    await settle();
  }
}

/** Lets the answers of asynchronous effects (a rating store's write, worker threads) come back in. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A core built the way the process builds it (buildCore), on manual timers, with sequential ids
 * and a fixed random: what the old tests called `new Coordinator(config, deps, placement, restored)`.
 */
export function testCore(
  config: CoordinatorConfig,
  timers: ManualTimers,
  options: Partial<CoreEnvironment> & { store?: TicketStore; restored?: readonly TicketRecord[]; place?: CorePlace } = {},
) {
  let id = 0;
  const environment = coreEnvironment(config, { now: () => timers.now, timers, log: silentLog, newId: () => `id${++id}`, random: () => 0.5, ...options });
  return buildCore(config, environment, { store: options.store, restored: options.restored, ...options.place });
}

export class RecordingChannel implements ServerChannel {
  readonly orders: ServerOrder[] = [];
  closedWith: MatchmakingError | undefined;
  send(order: ServerOrder): void {
    this.orders.push(order);
  }
  close(error: MatchmakingError): void {
    this.closedWith = error;
  }
  creates() {
    return this.orders.filter((o): o is Extract<ServerOrder, { kind: 'createGame' }> => o.kind === 'createGame');
  }
}

export class RecordingListener implements TicketListener {
  readonly updates: TicketUpdate[] = [];
  error: MatchmakingError | undefined;
  update(update: TicketUpdate): void {
    this.updates.push(update);
  }
  fail(error: MatchmakingError): void {
    this.error = error;
  }
  get assignment() {
    const last = this.updates.at(-1);
    return last?.kind === 'assigned' ? last.assignment : undefined;
  }
}

export class MemoryStore implements TicketStore {
  readonly records = new Map<string, TicketRecord>();
  save(record: TicketRecord): void {
    this.records.set(record.request.ticketId, record);
  }
  remove(ticketId: string): void {
    this.records.delete(ticketId);
  }
}

export const SOLO = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 1, reservationMs: 5000 }
  - name: party
    partitioning: { region: [eu] }
    matchable: [act]
    cooperative: { maxPlayers: 4, reservationMs: 5000 }
`;

export function setup(yaml = SOLO, restored: TicketRecord[] = [], store = new MemoryStore()) {
  const timers = new ManualTimers();
  const config = parseConfig(yaml);
  const coordinator = testCore(config, timers, { store, restored });
  const connect = (serverId: string, maxGames: number) => {
    const channel = new RecordingChannel();
    coordinator.connectServer(
      { serverId, endpoint: `${serverId}:7777`, attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [] },
      channel,
    );
    return channel;
  };
  const find = (ticketId: string, players: string[] = [ticketId], template = 'solo', matchable: AttributeSet = new Map()) => {
    const listener = new RecordingListener();
    const request: FindRequest = {
      ticketId,
      template,
      party: players.map((playerId) => ({ playerId, score: undefined })),
      partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
      matchable,
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
    coordinator.find(request, listener);
    return { listener, request };
  };
  return { coordinator, timers, connect, find, store };
}
