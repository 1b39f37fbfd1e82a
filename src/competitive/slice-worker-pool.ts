import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SliceResult, SliceSolver, SliceTask } from './batch-slices.js';
import type { SliceReply, SliceRequest } from './slice-worker.js';

export interface SliceWorkerPoolOptions {
  /** Worker threads; default max(1, availableParallelism() - 1), leaving a core to the event loop. */
  readonly size?: number;
}

interface Job {
  readonly id: number;
  readonly task: SliceTask;
  readonly resolve: (result: SliceResult) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  ready: Promise<void>;
}

/**
 * A small pool of worker threads that solve competitive batch slices in parallel (Battle.net talk,
 * "Performance Issues": "you can thread batches"), so a large batch does not block the coordinator's
 * event loop. Each worker solves one slice at a time; slices wait in a FIFO queue for a free
 * worker. A slice that fails rejects its promise; a worker that dies rejects its slice and is
 * replaced on the next dispatch. Workers are unref'ed while idle, so an idle pool never keeps
 * the process alive (and ref'ed while solving, so an awaited batch still completes).
 *
 * Workers load TypeScript through slice-worker-bootstrap.mjs, which registers tsx's loader
 * (`tsx/esm/api`) and then imports slice-worker.ts; this works the same under `tsx`, plain
 * `node --import tsx` and vitest, whatever the working directory.
 */
export class SliceWorkerPool implements SliceSolver {
  readonly size: number;
  /** undefined where a worker died: a new one is started when a slice needs it. */
  private readonly slots: (Slot | undefined)[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;

  constructor(options: SliceWorkerPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? availableParallelism() - 1));
    for (let k = 0; k < this.size; k++) this.slots.push(this.spawn());
  }

  /** Resolves once every worker has loaded (worth awaiting before timing a first batch). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot?.ready));
  }

  solve(task: SliceTask): Promise<SliceResult> {
    if (this.closed) return Promise.reject(new Error('slice worker pool: closed'));
    return new Promise<SliceResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates the workers; slices not solved yet reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new Error('slice worker pool: closed');
    for (const job of this.queue.splice(0)) job.reject(error);
    const terminating: Promise<number>[] = [];
    for (const slot of this.slots) {
      if (slot === undefined) continue;
      slot.job?.reject(error);
      slot.job = undefined;
      terminating.push(slot.worker.terminate());
    }
    await Promise.all(terminating);
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./slice-worker-bootstrap.mjs', import.meta.url), {
      // Not the parent's flags (vitest's or tsx's): the bootstrap registers tsx itself.
      execArgv: [],
    });
    worker.unref();
    let markReady: () => void = () => {};
    let markFailed: (error: Error) => void = () => {};
    const slot: Slot = {
      worker,
      job: undefined,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        markFailed = reject;
      }),
    };
    slot.ready.catch(() => {}); // a failed start also rejects the slot's slice; ready() reports it too
    worker.on('message', (message: SliceReply | { ready: true }) => {
      if ('ready' in message) {
        markReady();
        return;
      }
      const job = slot.job;
      if (job === undefined || job.id !== message.id) return;
      slot.job = undefined;
      worker.unref();
      if ('error' in message) job.reject(new Error(`slice worker: ${message.error}`));
      else job.resolve(message.result);
      this.dispatch();
    });
    const fail = (error: Error): void => {
      markFailed(error);
      const job = slot.job;
      slot.job = undefined;
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots[index] = undefined;
      void slot.worker.terminate();
      job?.reject(error);
      if (!this.closed) this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) fail(new Error(`slice worker: exited with code ${code}`));
    });
    return slot;
  }

  private dispatch(): void {
    for (let k = 0; k < this.slots.length; k++) {
      if (this.queue.length === 0) return;
      let slot = this.slots[k];
      if (slot === undefined) {
        slot = this.spawn();
        this.slots[k] = slot;
      }
      if (slot.job !== undefined) continue;
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      const request: SliceRequest = { id: job.id, task: job.task };
      slot.worker.postMessage(request);
    }
  }
}
