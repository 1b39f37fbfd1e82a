import { IndexedHeap, type HeapItem } from '../collections/indexed-heap.js';
import { StartRateBucket } from './start-rate-bucket.js';

/**
 * What a server advertises (Battle.net talk, "Queueing and Distribution", 2nd attempt: "allow
 * servers to advertise the number of games they can take" — and how fast they can start them).
 */
export interface ServerCapacity {
  maxGames: number;
  /** Token bucket rate; 0 = unlimited. */
  maxStartsPerSecond: number;
}

/**
 * fill: fewest free slots first, so idle servers stay idle and can be shut down.
 * spread: most free slots first, so load is even and a crash loses fewer games.
 * Ties go to the smaller server id, so the choice is deterministic. On a sharded cluster, servers
 * whose stream is on the core's own node (`sameNode`) come before the others, each group in the
 * policy's order: their orders and events then skip the relay.
 */
export type ServerPolicy = 'fill' | 'spread';

/** One server's counters, for metrics and tests. */
export interface ServerSlotsView {
  readonly serverId: string;
  readonly factories: readonly string[];
  readonly maxGames: number;
  readonly maxStartsPerSecond: number;
  readonly running: number;
  readonly inFlight: number;
  readonly free: number;
  /** Earliest time the server may start a game; -Infinity when its rate is unlimited. */
  readonly readyAt: number;
}

/**
 * Where a server sits in every factory it hosts: `ready` (free slot and a start token: a claim
 * candidate), `waiting` (free slot, no token until `readyAt`) or `full` (in no heap). Keeping
 * token-starved servers out of `ready` is what keeps claim() from scanning them.
 */
type SlotState = 'ready' | 'waiting' | 'full';

class HostedServer {
  running = 0;
  inFlight = 0;
  free = 0;
  state: SlotState = 'full';
  readonly memberships: FactoryMembership[] = [];
  constructor(
    readonly id: string,
    public factories: readonly string[],
    public maxGames: number,
    public bucket: StartRateBucket,
    readonly sameNode: boolean,
  ) {}
}

/** A server's entry in one factory's heaps; it is in that factory's `ready` or `waiting`, or neither. */
class FactoryMembership implements HeapItem {
  heapIndex = -1;
  constructor(
    readonly server: HostedServer,
    readonly factory: string,
    readonly slots: FactorySlots,
  ) {}
}

class FactorySlots {
  free = 0;
  servers = 0;
  constructor(
    readonly ready: IndexedHeap<FactoryMembership>,
    readonly waiting: IndexedHeap<FactoryMembership>,
  ) {}
}

const fewestFreeFirst = (a: FactoryMembership, b: FactoryMembership): boolean =>
  a.server.sameNode !== b.server.sameNode ? a.server.sameNode : a.server.free < b.server.free || (a.server.free === b.server.free && a.server.id < b.server.id);
const mostFreeFirst = (a: FactoryMembership, b: FactoryMembership): boolean =>
  a.server.sameNode !== b.server.sameNode ? a.server.sameNode : a.server.free > b.server.free || (a.server.free === b.server.free && a.server.id < b.server.id);
const soonestTokenFirst = (a: FactoryMembership, b: FactoryMembership): boolean => {
  const ta = a.server.bucket.readyAt;
  const tb = b.server.bucket.readyAt;
  return ta < tb || (ta === tb && a.server.id < b.server.id);
};

function checkCapacity(capacity: ServerCapacity): void {
  if (!Number.isInteger(capacity.maxGames) || capacity.maxGames < 0) {
    throw new RangeError(`maxGames must be an integer >= 0, got ${capacity.maxGames}`);
  }
}

/**
 * Slots advertised by servers, and which server gets the next game of a factory.
 *
 * Every factory keeps its hosting servers in two heaps: `ready`, ordered by the policy on
 * (free slots, server id), and `waiting`, ordered by the time of the next start token. A change
 * to one server re-keys it in each factory it hosts: O(F_s log n). claim() first re-admits the
 * waiting servers whose token time has come (each re-admission pays for the claim that put the
 * server there), then takes the top of `ready`: O(F_s log n) amortised.
 *
 * Time only moves forward: a `now` earlier than one already seen is read as the latest.
 * Calls about unknown server ids are ignored: a server may have been removed while its games
 * were in flight.
 */
export class SlotLedger {
  private readonly servers = new Map<string, HostedServer>();
  private readonly factories = new Map<string, FactorySlots>();
  private totalFree = 0;
  private clock = -Infinity;
  private readonly readyOrder: (a: FactoryMembership, b: FactoryMembership) => boolean;

  constructor(readonly policy: ServerPolicy) {
    this.readyOrder = policy === 'fill' ? fewestFreeFirst : mostFreeFirst;
  }

  /**
   * Adds (or replaces) a server with the games it already runs, e.g. re-announced on reconnect,
   * and the creations still in flight on it (a replacing hello that says they are unanswered).
   */
  addServer(
    serverId: string,
    factories: readonly string[],
    capacity: ServerCapacity,
    runningGames: number,
    now: number,
    inFlight = 0,
    /** Its stream is on this core's node (a sharded cluster): preferred, see ServerPolicy. */
    sameNode = false,
  ): void {
    checkCapacity(capacity);
    this.advance(now);
    if (this.servers.has(serverId)) this.removeServer(serverId);
    const hosted = Object.freeze([...new Set(factories)]);
    const server = new HostedServer(
      serverId,
      hosted,
      capacity.maxGames,
      new StartRateBucket(capacity.maxStartsPerSecond, this.clock),
      sameNode,
    );
    server.running = Math.max(0, runningGames);
    server.inFlight = Math.max(0, inFlight);
    this.servers.set(serverId, server);
    for (const factory of hosted) {
      let slots = this.factories.get(factory);
      if (slots === undefined) {
        slots = new FactorySlots(new IndexedHeap(this.readyOrder), new IndexedHeap(soonestTokenFirst));
        this.factories.set(factory, slots);
      }
      slots.servers++;
      server.memberships.push(new FactoryMembership(server, factory, slots));
    }
    this.reindex(server, true);
  }

  /** A connected server takes on more factories (a reload made them): it joins their heaps as it stands. */
  addFactories(serverId: string, factories: readonly string[]): void {
    const server = this.servers.get(serverId);
    if (server === undefined) return;
    const fresh = [...new Set(factories)].filter((f) => !server.factories.includes(f));
    if (fresh.length === 0) return;
    server.factories = Object.freeze([...server.factories, ...fresh]);
    for (const factory of fresh) {
      let slots = this.factories.get(factory);
      if (slots === undefined) {
        slots = new FactorySlots(new IndexedHeap(this.readyOrder), new IndexedHeap(soonestTokenFirst));
        this.factories.set(factory, slots);
      }
      slots.servers++;
      slots.free += server.free;
      const membership = new FactoryMembership(server, factory, slots);
      server.memberships.push(membership);
      this.heapOf(slots, server.state)?.push(membership);
    }
  }

  /** Removes a server with its slots; in-flight creations are the caller's to re-queue. */
  removeServer(serverId: string): void {
    const server = this.servers.get(serverId);
    if (server === undefined) return;
    this.servers.delete(serverId);
    this.totalFree -= server.free;
    for (const m of server.memberships) {
      this.heapOf(m.slots, server.state)?.remove(m);
      m.slots.free -= server.free;
      if (--m.slots.servers === 0) this.factories.delete(m.factory);
    }
  }

  setCapacity(serverId: string, capacity: ServerCapacity, now: number): void {
    checkCapacity(capacity);
    this.advance(now);
    const server = this.servers.get(serverId);
    if (server === undefined) return;
    server.maxGames = capacity.maxGames;
    if (capacity.maxStartsPerSecond !== server.bucket.startsPerSecond) {
      server.bucket = server.bucket.withRate(capacity.maxStartsPerSecond, this.clock);
    }
    this.reindex(server, true);
  }

  /**
   * Claims a slot for a new game of `factory` on the server the policy prefers, or undefined.
   * `avoid`: a server this request just failed on (it timed out or refused): the policy's next
   * choice when another is ready, that one only when it is the only one.
   */
  claim(factory: string, now: number, avoid?: string): string | undefined {
    this.advance(now);
    const slots = this.factories.get(factory);
    if (slots === undefined) return undefined;
    this.admitDue(slots);
    let server = slots.ready.peek()?.server;
    if (server === undefined) return undefined;
    if (server.id === avoid) server = secondChoice(slots.ready)?.server ?? server;
    server.inFlight++;
    server.bucket.take(this.clock);
    this.reindex(server, false);
    return server.id;
  }

  /** Whether claim(factory, now) would succeed; for the queue's `hasCapacity`. */
  canClaim(factory: string, now: number): boolean {
    this.advance(now);
    const slots = this.factories.get(factory);
    if (slots === undefined) return false;
    this.admitDue(slots);
    return slots.ready.size > 0;
  }

  /** The server confirmed the creation: in flight -> running. A confirm after release still counts the game. */
  confirm(serverId: string): void {
    const server = this.servers.get(serverId);
    if (server === undefined) return;
    if (server.inFlight > 0) server.inFlight--;
    server.running++;
    this.reindex(server, false);
  }

  /** The creation failed, timed out or was taken back: the in-flight slot is free again. */
  release(serverId: string): void {
    const server = this.servers.get(serverId);
    if (server === undefined || server.inFlight === 0) return;
    server.inFlight--;
    this.reindex(server, false);
  }

  /** A running game the server reported without a claim (e.g. created outside the coordinator). */
  gameStarted(serverId: string): void {
    const server = this.servers.get(serverId);
    if (server === undefined) return;
    server.running++;
    this.reindex(server, false);
  }

  gameEnded(serverId: string): void {
    const server = this.servers.get(serverId);
    if (server === undefined || server.running === 0) return;
    server.running--;
    this.reindex(server, false);
  }

  /** Free slots (max games − running − in flight, never below 0), of servers hosting `factory` or of all. */
  freeSlots(factory?: string): number {
    if (factory === undefined) return this.totalFree;
    return this.factories.get(factory)?.free ?? 0;
  }

  /** Servers hosting `factory`, or all; 0 means a request for it cannot be served at all. */
  serverCount(factory?: string): number {
    if (factory === undefined) return this.servers.size;
    return this.factories.get(factory)?.servers ?? 0;
  }

  /**
   * Earliest time a server hosting `factory` can start a game: `now` when one can already,
   * the next token time of a rate-limited server with free slots, or undefined when no server
   * hosting it has a free slot (wait for a slot event instead of a timer).
   */
  nextStartAt(factory: string, now: number): number | undefined {
    this.advance(now);
    const slots = this.factories.get(factory);
    if (slots === undefined) return undefined;
    this.admitDue(slots);
    if (slots.ready.size > 0) return this.clock;
    return slots.waiting.peek()?.server.bucket.readyAt;
  }

  /** Factories of one server (for draining the queue when that server frees a slot). */
  factoriesOf(serverId: string): readonly string[] {
    return this.servers.get(serverId)?.factories ?? [];
  }

  server(serverId: string): ServerSlotsView | undefined {
    const s = this.servers.get(serverId);
    if (s === undefined) return undefined;
    return {
      serverId: s.id,
      factories: s.factories,
      maxGames: s.maxGames,
      maxStartsPerSecond: s.bucket.startsPerSecond,
      running: s.running,
      inFlight: s.inFlight,
      free: s.free,
      readyAt: s.bucket.readyAt,
    };
  }

  private advance(now: number): void {
    if (now > this.clock) this.clock = now;
  }

  /** Moves servers whose start token has come from `waiting` to `ready`, in all their factories. */
  private admitDue(slots: FactorySlots): void {
    for (let m = slots.waiting.peek(); m !== undefined && m.server.bucket.readyAt <= this.clock; m = slots.waiting.peek()) {
      this.reindex(m.server, false);
    }
  }

  /** Recomputes a server's free slots and state, and re-keys it in each factory it hosts. */
  private reindex(server: HostedServer, keyChanged: boolean): void {
    const free = Math.max(0, server.maxGames - server.running - server.inFlight);
    const delta = free - server.free;
    const state: SlotState = free === 0 ? 'full' : server.bucket.readyAt <= this.clock ? 'ready' : 'waiting';
    if (delta === 0 && state === server.state && !keyChanged) return;
    server.free = free;
    this.totalFree += delta;
    for (const m of server.memberships) {
      m.slots.free += delta;
      const from = this.heapOf(m.slots, server.state);
      const to = this.heapOf(m.slots, state);
      if (from === to) to?.update(m);
      else {
        from?.remove(m);
        to?.push(m);
      }
    }
    server.state = state;
  }

  private heapOf(slots: FactorySlots, state: SlotState): IndexedHeap<FactoryMembership> | undefined {
    return state === 'ready' ? slots.ready : state === 'waiting' ? slots.waiting : undefined;
  }
}

/** The heap's best after its top: one of the top's two children (O(1)). */
function secondChoice(heap: IndexedHeap<FactoryMembership>): FactoryMembership | undefined {
  const left = heap.at(1);
  const right = heap.at(2);
  if (left === undefined || right === undefined) return left ?? right;
  return heap.before(right, left) ? right : left;
}
