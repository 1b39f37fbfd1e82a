import { PlayerClaims } from '../../cluster/in-process/index.js';
import type { PlayerClaimConflict } from '../../cluster/ports.js';
import { ROOT } from '../keys.js';
import { runBatchScript, type RedisClient } from '../script-set.js';

/** One key per player (its own hash tag): no single slot carries every player's claim. */
export const playerClaimKey = (playerId: string) => `${ROOT}:{pl:${playerId.replace(/[{}]/g, '_')}}:ticket`;

/** A claim or release asked for this tick, answered when the tick's call is. */
interface Asked {
  readonly claim: boolean;
  readonly ticketId: string;
  readonly playerIds: readonly string[];
  resolve(answers: readonly string[]): void;
  reject(error: unknown): void;
}

/**
 * One live ticket per player across a sharded cluster: a node's gateway claims the party before
 * it forwards a find to the shard's owner, and the owner releases it with the core's `release`
 * effects once the commit that ended the ticket is written (`releasedAfterCommit`). A claim
 * outlives the ticket's time to live by a margin, so one left by an owner that died between
 * assigning and releasing expires.
 *
 * The claims and releases asked in one turn of the event loop go out together, in the order they
 * were asked: on one Redis in one call of `player-claims-n` (a party claimed whole or not at
 * all), on a Redis Cluster one call per player key (each its own slot; a conflict then releases
 * the party's players this call claimed). One command per tick instead of one per player.
 */
export class RedisPlayerClaims {
  private asked: Asked[] = [];

  constructor(
    private readonly client: RedisClient,
    private readonly claimMs: number,
  ) {}

  async claim(ticketId: string, playerIds: readonly string[]): Promise<PlayerClaimConflict | undefined> {
    const answers = await this.ask(true, ticketId, playerIds);
    const conflict = answers.findIndex((a) => a !== '' && a !== '!');
    if (conflict < 0) return undefined;
    // Claimed here while another key refused (a Cluster splits a party): let them go.
    const claimed = playerIds.filter((_, i) => answers[i] === '');
    if (claimed.length > 0) await this.release(ticketId, claimed);
    return { playerId: playerIds[conflict]!, ticketId: answers[conflict]! };
  }

  async release(ticketId: string, playerIds: readonly string[]): Promise<void> {
    await this.ask(false, ticketId, playerIds);
  }

  private ask(claim: boolean, ticketId: string, playerIds: readonly string[]): Promise<readonly string[]> {
    if (playerIds.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.asked.push({ claim, ticketId, playerIds, resolve, reject });
      if (this.asked.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.asked;
    this.asked = [];
    const keys: string[] = [];
    const ops: string[] = [];
    for (const asked of batch) {
      for (const playerId of asked.playerIds) {
        keys.push(playerClaimKey(playerId));
        ops.push((asked.claim ? '+' : '-') + asked.ticketId);
      }
    }
    const answered = this.client.isCluster
      ? Promise.all(keys.map((key, i) => runBatchScript<string[]>(this.client, 'gfPlayerClaims', [key], [this.claimMs, ops[i]!]).then((a) => a[0]!)))
      : runBatchScript<string[]>(this.client, 'gfPlayerClaims', keys, [this.claimMs, ...ops]);
    answered.then(
      (answers) => {
        let at = 0;
        for (const asked of batch) {
          asked.resolve(answers.slice(at, at + asked.playerIds.length));
          at += asked.playerIds.length;
        }
      },
      (error: unknown) => batch.forEach((a) => a.reject(error)),
    );
  }
}

/** What tells a release once the commit before it is written (a MatcherSeat's `deliver`), or drops it when that commit never will be. */
export interface CommitOrder {
  deliver(run: () => void, drop?: () => void): void;
}

/**
 * A shard core's player index whose releases reach the cluster's shared claims only once the
 * commit holding the step that released them is written: a ticket assigned, cancelled or expired
 * in a commit that fails (the term ended) is still stored for the next owner, which restores it
 * with its players, so its claim must stay. Told after the commit, the releases of a tick go out
 * in one call; a node killed between the commit and the release leaves claims that expire.
 */
export function releasedAfterCommit(seat: CommitOrder, shared: { release(ticketId: string, playerIds: readonly string[]): Promise<void> }, warn: (ticketId: string, error: Error) => void): PlayerClaims {
  return new PlayerClaims((ticketId, playerIds) => {
    seat.deliver(() => void shared.release(ticketId, playerIds).catch((error: Error) => warn(ticketId, error)));
  });
}
