/** Inputs handled in one event-loop turn before the rest wait for the next (see InputPacer). */
export const INPUTS_PER_TURN = 256;

/** Inputs waiting beyond which the streams that feed most of them stop being read. */
export const MAX_WAITING_INPUTS = 4 * 1024;

/**
 * Inputs waiting beyond which a new call (FindGame, CancelFind) is refused: calls are not a
 * stream whose reads can be held, and the queue must stay bounded when they arrive faster than
 * they are handled.
 */
export const MAX_WAITING_CALLS = 64 * 1024;

/** Handled inputs at the front of the queue past which it is compacted while a backlog lasts. */
const COMPACT_AFTER = 1024;

/**
 * Every input of the process's streams (finds, cancels, game servers' reports), handled in the
 * order it arrived, at most `perTurn` in one event-loop turn; the rest wait for the next turn.
 *
 * Why: one socket read can carry thousands of inputs (a gateway's batches of 1,024 finds, twenty
 * game servers' batches of reports), and grpc-js hands them over in one turn. Handled at once,
 * the coordinator worked ~50-100 ms while what the first inputs caused (orders to servers,
 * answers, the store's commit) could not leave; its peers then sat idle, and then it did, in
 * turn: a closed loop of clients and servers settled into convoys that used one core of two
 * (perf/PROFILE.md, "The edge against its echo floors, third pass"). A turn boundary lets the
 * outboxes flush and the store commit while the rest is still being handled.
 *
 * Handlers run synchronously when nothing waits and the turn has room, so a lone find is not
 * delayed. One queue for every stream keeps inputs in arrival order across streams (a find, then
 * a CancelFind for it on another call). A handler must not throw (each catches its own errors
 * into an answer); one that does is reported to `onError` and the others go on.
 */
export class InputPacer {
  private handlers: ((input: never) => void)[] = [];
  private inputs: unknown[] = [];
  private next = 0;
  /** Inputs handled in the current turn. */
  private handled = 0;
  private turnEnd: NodeJS.Immediate | undefined;
  private readonly drainedListeners: (() => void)[] = [];

  constructor(
    private readonly onError: (error: unknown) => void,
    private readonly perTurn = INPUTS_PER_TURN,
  ) {}

  /** Inputs waiting for a later turn. */
  get waiting(): number {
    return this.inputs.length - this.next;
  }

  /** Handles `input` now if it can, else after every input that arrived before it. */
  push<T>(handle: (input: T) => void, input: T): void {
    this.turnEnd ??= setImmediate(this.endTurn);
    if (this.waiting === 0 && this.handled < this.perTurn) {
      this.handled++;
      this.run(handle as (input: never) => void, input as never);
      return;
    }
    this.handlers.push(handle as (input: never) => void);
    this.inputs.push(input);
  }

  /** Too much waits for a new call to join the queue (MAX_WAITING_CALLS). */
  get full(): boolean {
    return this.waiting > MAX_WAITING_CALLS;
  }

  /** Calls `fn` once nothing waits (at once if nothing does). */
  whenDrained(fn: () => void): void {
    if (this.waiting === 0) fn();
    else this.drainedListeners.push(fn);
  }

  private readonly endTurn = (): void => {
    this.turnEnd = undefined;
    const handlers = this.handlers;
    const inputs = this.inputs;
    const end = Math.min(inputs.length, this.next + this.perTurn);
    while (this.next < end) {
      const at = this.next++;
      const handle = handlers[at]!;
      const input = inputs[at] as never;
      // Let go of what was handled: a large backlog is not kept alive until it is all handled.
      handlers[at] = undefined!;
      inputs[at] = undefined;
      this.run(handle, input);
    }
    if (this.next < inputs.length) {
      // Under a backlog that never drains, the handled front goes (amortised O(1) an input), so
      // the lists do not grow by every input ever handled.
      if (this.next >= COMPACT_AFTER && 2 * this.next >= inputs.length) {
        handlers.splice(0, this.next);
        inputs.splice(0, this.next);
        this.next = 0;
      }
      this.turnEnd = setImmediate(this.endTurn);
      return;
    }
    this.handlers = [];
    this.inputs = [];
    this.next = 0;
    // Inputs that arrive from the next read on are handled as they come, up to the turn's share.
    this.handled = 0;
    const listeners = this.drainedListeners.splice(0);
    for (const fn of listeners) fn();
  };

  private run(handle: (input: never) => void, input: never): void {
    try {
      handle(input);
    } catch (error) {
      this.onError(error);
    }
  }
}
