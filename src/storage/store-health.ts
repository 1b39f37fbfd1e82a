/** Room a probe needs before the store takes new tickets again after a failed write. */
export const PROBE_HEADROOM_BYTES = 64 * 1024;

/**
 * Whether the LMDB environment can write now. A write that fails (a full disk: ENOSPC, EIO,
 * "Commit failed") marks it failing; while failing, a probe is tried every `probeMs`, and only a
 * probe that lands marks it writable again. The probe asks for headroom (`PROBE_HEADROOM_BYTES`),
 * not for one more small write: near a full disk small commits land in pages a failed one gave
 * back, so taking "a write landed" for "space returned" let new tickets in and out again every
 * few milliseconds. The transport asks `failing()` before it takes a new ticket, so a full disk
 * refuses newcomers instead of accepting tickets it cannot keep.
 */
export class StoreHealth {
  private error: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    /** Resolves when a write of the headroom commits, rejects when it cannot. */
    private readonly probe: () => Promise<unknown>,
    private readonly probeMs: number,
    private readonly onChange: (failing: Error | undefined) => void = () => {},
  ) {}

  /** The error of the last failed write while the store cannot write; undefined when it can. */
  failing(): Error | undefined {
    return this.error;
  }

  private recovered(): void {
    if (this.error === undefined) return;
    this.error = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.onChange(undefined);
  }

  failed(error: Error): void {
    const was = this.error;
    this.error = error;
    if (was === undefined) this.onChange(error);
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      this.probe().then(
        () => this.recovered(),
        () => {}, // still failing: the next probe tries again
      );
    }, this.probeMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * LMDB's own promises that reject when a commit fails and that it never hands to a caller (each
 * failed write's `commitError`, and the write promises of a transaction it batched on its own):
 * with nobody to catch them they would end the process. Recognised by lmdb-js's marks only.
 */
export function isLmdbCommitFailure(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  if ('commitError' in reason) return true;
  return /[\\/]lmdb[\\/]write\.js:/.test(reason.stack ?? '');
}

/**
 * lmdb-js rejects each write of a failed transaction with "Commit failed" and puts the cause on a
 * second promise, `commitError`, that nobody else holds: reading it reports the cause (ENOSPC,
 * EIO) and keeps that promise from becoming an unhandled rejection.
 */
export function withCommitCause(error: unknown, report: (cause: Error) => void): void {
  const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
  const cause = (error as { commitError?: unknown } | undefined)?.commitError;
  if (cause instanceof Promise) cause.then(() => report(asError(error)), (c: unknown) => report(asError(c)));
  else report(asError(error));
}

const strayHandlers = new Set<(error: Error) => void>();
let guarded = false;

/**
 * Reports each unhandled rejection from LMDB's commit machinery to the listeners (the open
 * stores) instead of letting it end the process; any other unhandled rejection still ends the
 * process as Node's default would. Installed once per process, by the first store opened.
 */
export function onStrayLmdbFailure(handler: (error: Error) => void): () => void {
  if (!guarded) {
    guarded = true;
    process.on('unhandledRejection', (reason) => {
      if (isLmdbCommitFailure(reason)) {
        for (const h of strayHandlers) h(reason as Error);
        return;
      }
      // Anyone else's: left to another listener if there is one (a test runner), else the
      // process ends as Node's default would.
      if (process.listenerCount('unhandledRejection') === 1) throw reason;
    });
  }
  strayHandlers.add(handler);
  return () => strayHandlers.delete(handler);
}
