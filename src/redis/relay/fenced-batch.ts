import type { Log } from '../../coordinator/ports.js';
import type { RedisClient } from '../script-set.js';

interface FencedCall {
  readonly script: string;
  readonly args: readonly (string | number)[];
  /** Named in the log when Redis refuses it. */
  readonly what: string;
}

/**
 * The owner's fenced writes of one step (the answers, ticket records and inbox acks one batch of
 * requests or one timer produced), sent as one MULTI/EXEC: Redis applies all of them or, if the
 * owner dies before EXEC, none. So a new owner never finds a ticket removed whose assignment was
 * not kept, or requests acknowledged whose answers were not written. Each script checks the
 * fencing token itself; a -1 answer is a refusal.
 */
export class FencedBatch {
  private pending: FencedCall[] = [];
  private scheduled = false;

  constructor(
    private readonly client: RedisClient,
    private readonly onRefused: (what: string) => void,
    private readonly log: Log,
  ) {}

  /** Queued; sent with the rest of this step (before the next I/O callback). */
  add(script: string, args: readonly (string | number)[], what: string): void {
    this.pending.push({ script, args, what });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Sends what is queued now; resolves once Redis has answered. */
  async flush(): Promise<void> {
    this.scheduled = false;
    const calls = this.pending;
    this.pending = [];
    if (calls.length === 0) return;
    const multi = this.client.multi() as unknown as Record<string, (...a: (string | number)[]) => unknown> & { exec(): Promise<[Error | null, unknown][] | null> };
    for (const call of calls) multi[call.script]!(...call.args);
    try {
      const results = (await multi.exec()) ?? [];
      let refused: string | undefined;
      results.forEach(([error, code], i) => {
        if (error) this.log.warn({ what: calls[i]!.what, error: error.message }, 'matcher: a write failed');
        else if (code === -1) refused ??= calls[i]!.what;
      });
      if (refused !== undefined) this.onRefused(refused);
    } catch (error) {
      this.log.warn({ writes: calls.length, error: (error as Error).message }, 'matcher: writes not sent');
    }
  }
}
