import type { GameResult, GameResultAck } from '@gamefactory/protocol/v1/game_server_link';

/** What the coordinator made of a result. */
export interface ResultAck {
  /** False when it was already applied, or did not count (too short: see `reason`). */
  readonly applied: boolean;
  readonly reason: string;
}

interface Pending {
  readonly result: GameResult;
  readonly resolve: (ack: ResultAck) => void;
  readonly reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/**
 * Results sent and not yet answered. A result must not be lost to a reconnect: each is sent again
 * on every new stream until its ack arrives (the coordinator applies a game's result once, so a
 * repeat is harmless).
 */
export class ResultReports {
  private readonly pending: Pending[] = [];

  constructor(
    private readonly send: (result: GameResult) => boolean,
    private readonly timeoutMs: number,
  ) {}

  report(result: GameResult): Promise<ResultAck> {
    return new Promise((resolve, reject) => {
      const entry: Pending = { result, resolve, reject };
      this.pending.push(entry);
      this.transmit(entry);
    });
  }

  /** A new stream is up: every unanswered result goes again. */
  resend(): void {
    for (const entry of this.pending) this.transmit(entry);
  }

  acknowledged(ack: GameResultAck): void {
    const entry = this.take((p) => p.result.gameId === ack.gameId);
    entry?.resolve({ applied: ack.applied, reason: ack.reason });
  }

  /** A `rejected` answer to a result names its game; the oldest result is blamed otherwise. */
  refused(reason: string): void {
    if (!reason.startsWith('gameResult')) return;
    const entry = this.take((p) => reason.includes(`"${p.result.gameId}"`)) ?? this.take(() => true);
    entry?.reject(new Error(`result refused: ${reason}`));
  }

  rejectAll(why: string): void {
    for (const entry of this.pending.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(new Error(`result for ${entry.result.gameId} not acknowledged: ${why}`));
    }
  }

  private transmit(entry: Pending): void {
    clearTimeout(entry.timer);
    // While disconnected there is no clock on it: the result waits for the next stream.
    if (!this.send(entry.result)) return;
    entry.timer = setTimeout(() => {
      if (this.take((p) => p === entry)) entry.reject(new Error(`result for ${entry.result.gameId}: no answer within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }

  private take(match: (p: Pending) => boolean): Pending | undefined {
    const i = this.pending.findIndex(match);
    if (i < 0) return undefined;
    const [entry] = this.pending.splice(i, 1);
    clearTimeout(entry!.timer);
    return entry;
  }
}
