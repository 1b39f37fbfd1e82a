import type { Timers } from '../../coordinator/ports.js';
import { seededRandom } from '../../competitive/seeded-random.js';

/** One process of the simulated cluster: a node, Redis, a game server, the clients. */
export interface SimProcess {
  readonly name: string;
  /** Bumped by every kill: work scheduled for an earlier incarnation never runs. */
  incarnation: number;
  state: 'up' | 'paused' | 'down';
  /** What came due while paused, run in order on resume. */
  deferred: Task[];
}

interface Task {
  readonly at: number;
  readonly seq: number;
  readonly process: SimProcess;
  readonly incarnation: number;
  readonly run: () => void;
}

/**
 * The deterministic world the cluster simulator runs in (FoundationDB's and TigerBeetle's way):
 * one manual clock, one seeded random source and one queue of tasks. Every timer, message
 * delivery and reply of every process is a task; a seed decides every delay, so one seed is one
 * schedule and replays exactly. Processes are killed (their pending work is dropped and their
 * streams break), paused (their work waits) and resumed.
 */
export class SimWorld {
  now = 0;
  readonly random: () => number;
  private seq = 0;
  private readonly heap: Task[] = [];
  private readonly processes = new Map<string, SimProcess>();
  /** Last delivery time of each ordered pair: messages between two processes arrive in order, as on one TCP connection. */
  private readonly lastArrival = new Map<string, number>();
  private readonly streams = new Set<SimStream>();

  constructor(
    seed: number,
    /** Largest one-way network delay, ms. */
    readonly maxDelayMs = 8,
  ) {
    this.random = seededRandom(seed);
  }

  process(name: string): SimProcess {
    let p = this.processes.get(name);
    if (!p) this.processes.set(name, (p = { name, incarnation: 0, state: 'up', deferred: [] }));
    return p;
  }

  /** Runs `run` in `process` after `ms`, unless the process dies first; while it is paused, when it resumes. */
  after(process: SimProcess, ms: number, run: () => void): () => void {
    const task: Task = { at: this.now + Math.max(0, ms), seq: this.seq++, process, incarnation: process.incarnation, run };
    let cancelled = false;
    push(this.heap, { ...task, run: () => !cancelled && run() });
    return () => void (cancelled = true);
  }

  /** The Timers port of a process. */
  timers(process: SimProcess): Timers {
    return { set: (fn, ms) => this.after(process, ms, fn) };
  }

  /** A one-way message: runs `deliver` in `to` after a seeded delay, in order with earlier messages of the pair. */
  send(from: SimProcess, to: SimProcess, deliver: () => void): void {
    const key = `${from.name}>${to.name}`;
    const at = Math.max(this.now + 1 + Math.floor(this.random() * this.maxDelayMs), this.lastArrival.get(key) ?? 0);
    this.lastArrival.set(key, at);
    this.after(to, at - this.now, deliver);
  }

  /** A bidirectional stream between two processes (a gRPC stream over one connection). */
  stream(a: SimProcess, b: SimProcess): SimStream {
    const stream = new SimStream(this, a, b);
    this.streams.add(stream);
    return stream;
  }

  forget(stream: SimStream): void {
    this.streams.delete(stream);
  }

  kill(process: SimProcess): void {
    process.incarnation++;
    process.state = 'down';
    process.deferred = [];
    for (const stream of [...this.streams]) if (stream.touches(process)) stream.breakBy(process);
  }

  /** A killed process starts again (a new incarnation: nothing of the old one runs). */
  revive(process: SimProcess): void {
    process.state = 'up';
  }

  pause(process: SimProcess): void {
    if (process.state === 'up') process.state = 'paused';
  }

  resume(process: SimProcess): void {
    if (process.state !== 'paused') return;
    process.state = 'up';
    const deferred = process.deferred;
    process.deferred = [];
    for (const task of deferred) push(this.heap, { ...task, at: this.now, seq: this.seq++ });
  }

  /** Runs tasks in time order until `until`, letting every promise settle after each; `afterEach` checks the contract. */
  async runUntil(until: number, afterEach?: () => void): Promise<void> {
    for (;;) {
      const task = this.heap[0];
      if (!task || task.at > until) break;
      pop(this.heap);
      if (task.incarnation !== task.process.incarnation || task.process.state === 'down') continue;
      if (task.process.state === 'paused') {
        task.process.deferred.push(task);
        continue;
      }
      this.now = Math.max(this.now, task.at);
      task.run();
      await settle();
      afterEach?.();
    }
    this.now = Math.max(this.now, until);
  }
}

/** Lets every promise chain the last task started run to its end (nothing else is pending: no real I/O). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Two ends of one stream; either side's death breaks it for the other, after a network delay. */
export class SimStream {
  private open = true;
  private readonly closers: { side: SimProcess; fn: (reason: string) => void }[] = [];

  constructor(
    private readonly world: SimWorld,
    readonly a: SimProcess,
    readonly b: SimProcess,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  touches(process: SimProcess): boolean {
    return this.a === process || this.b === process;
  }

  /** Sends from `from` to the other side, in order; dropped once the stream is closed. */
  send(from: SimProcess, deliver: () => void): void {
    if (!this.open) return;
    const to = from === this.a ? this.b : this.a;
    this.world.send(from, to, () => this.open && deliver());
  }

  /** Called in `side` when the stream ends (the other side closed it or died). */
  onClose(side: SimProcess, fn: (reason: string) => void): void {
    this.closers.push({ side, fn });
  }

  /** `by` ends the stream: the other side hears of it after a delay. */
  close(by: SimProcess, reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.world.forget(this);
    for (const c of this.closers) if (c.side !== by) this.world.send(by, c.side, () => c.fn(reason));
  }

  breakBy(dead: SimProcess): void {
    this.close(dead, `${dead.name} died`);
  }
}

function push(heap: Task[], task: Task): void {
  heap.push(task);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function pop(heap: Task[]): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}

const before = (x: Task, y: Task) => x.at < y.at || (x.at === y.at && x.seq < y.seq);
