import { PlayerClaims } from '../../cluster/in-process/index.js';
import type { CoordinatorView } from '../../coordinator/edges/view.js';
import type { FindRequest } from '../../coordinator/messages.js';
import type { ClaimAnswer, SharedPlayerClaims } from '../../cluster/sharded/index.js';
import { runBatchScript, type RedisClient } from '../script-set.js';
import { claimKeyTag, playerClaimKey, ticketClaimKey } from './claim-keys.js';

export { playerClaimKey, ticketClaimKey };

/** What a claim holds: the ticket in its shard, so the same id in another shard is another holder. */
export const claimHolder = (ticketId: string, shard: number) => `${shard}:${ticketId}`;

function parseHolder(holder: string): { readonly shard: number; readonly ticketId: string } {
  const at = holder.indexOf(':');
  return { shard: Number(holder.slice(0, at)), ticketId: holder.slice(at + 1) };
}

/** A claim or release asked for this tick, answered when the tick's call is. */
interface Asked {
  readonly claim: boolean;
  readonly holder: string;
  readonly keys: readonly string[];
  resolve(answers: readonly string[]): void;
  reject(error: unknown): void;
}

/**
 * One live ticket per player across a sharded cluster: a node's gateway claims the party before
 * it forwards a find to the shard's owner, and the owner releases it with the core's `release`
 * effects once the commit that ended the ticket is written (`releasedAfterCommit`). The ticket's
 * id is claimed with its players (`ticketClaimKey`), each key holding the ticket in its shard:
 * a find under a live ticket's id for another shard's factory is refused, whatever its party. A
 * claim outlives the ticket's time to live by a margin, so one left by an owner that died between
 * assigning and releasing expires.
 *
 * The claims and releases asked in one turn of the event loop go out together, in the order they
 * were asked: on one Redis in one call of `player-claims-n` (a party and its ticket id claimed
 * whole or not at all), on a Redis Cluster one call per claim bucket the tick's keys fall in
 * (`claim-keys.ts`: a slot each; a party split over buckets is refused whole too, since a
 * conflict releases the keys this tick claimed for it). One command per tick instead of one per player.
 */
export class RedisPlayerClaims implements SharedPlayerClaims {
  private asked: Asked[] = [];

  constructor(
    private readonly client: RedisClient,
    private readonly claimMs: number,
  ) {}

  async claim(ticketId: string, shard: number, playerIds: readonly string[]): Promise<ClaimAnswer> {
    const holder = claimHolder(ticketId, shard);
    const keys = [...playerIds.map(playerClaimKey), ticketClaimKey(ticketId)];
    const answers = await this.ask(true, holder, keys);
    // Taken by this claim ("=": already the holder's, a retry's or a same-shard namesake's, kept).
    const taken = keys.filter((_, i) => answers[i] === '');
    const conflict = answers.findIndex((a) => a !== '' && a !== '=' && a !== '!');
    if (conflict < 0) return { undo: () => this.ask(false, holder, taken).then(() => undefined) };
    // Taken here while another key refused (a Cluster splits a party): let them go.
    if (taken.length > 0) await this.ask(false, holder, taken);
    const held = parseHolder(answers[conflict]!);
    if (held.ticketId === ticketId) return { conflict: { ticketId, shard: held.shard } };
    return { conflict: { playerId: playerIds[conflict]!, ticketId: held.ticketId } };
  }

  async release(ticketId: string, shard: number, playerIds: readonly string[], keepId = false): Promise<void> {
    const keys = playerIds.map(playerClaimKey);
    if (!keepId) keys.push(ticketClaimKey(ticketId));
    await this.ask(false, claimHolder(ticketId, shard), keys);
  }

  async shardOf(ticketId: string): Promise<number | undefined> {
    const holder = await this.client.get(ticketClaimKey(ticketId));
    return holder === null ? undefined : parseHolder(holder).shard;
  }

  private ask(claim: boolean, holder: string, keys: readonly string[]): Promise<readonly string[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.asked.push({ claim, holder, keys, resolve, reject });
      if (this.asked.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.asked;
    this.asked = [];
    const keys: string[] = [];
    const ops: string[] = [];
    for (const asked of batch) {
      for (const key of asked.keys) {
        keys.push(key);
        ops.push((asked.claim ? '+' : '-') + asked.holder);
      }
    }
    const answered = this.client.isCluster ? this.callPerBucket(keys, ops) : runBatchScript<string[]>(this.client, 'gfPlayerClaims', keys, [this.claimMs, ...ops]);
    answered.then(
      (answers) => {
        let at = 0;
        for (const asked of batch) {
          asked.resolve(answers.slice(at, at + asked.keys.length));
          at += asked.keys.length;
        }
      },
      (error: unknown) => batch.forEach((a) => a.reject(error)),
    );
  }

  /** A Redis Cluster: one call per bucket (its keys share a slot), each in the order asked; the answers put back in that order. */
  private async callPerBucket(keys: readonly string[], ops: readonly string[]): Promise<string[]> {
    const groups = new Map<string, number[]>();
    keys.forEach((key, i) => {
      const tag = claimKeyTag(key);
      const group = groups.get(tag);
      if (group) group.push(i);
      else groups.set(tag, [i]);
    });
    const answers = new Array<string>(keys.length);
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const got = await runBatchScript<string[]>(this.client, 'gfPlayerClaims', group.map((i) => keys[i]!), [this.claimMs, ...group.map((i) => ops[i]!)]);
        group.forEach((i, k) => (answers[i] = got[k]!));
      }),
    );
    return answers;
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
export function releasedAfterCommit(
  seat: CommitOrder,
  shared: Pick<SharedPlayerClaims, 'release'>,
  shard: number,
  warn: (ticketId: string, error: Error) => void,
  /**
   * The players of the ticket under this id waiting in the shard's core now, undefined when none
   * waits. What it holds is not given back, its id included: a find refused under a live ticket's
   * id (another party, or another request) frees only its own players (freed, the id would let a
   * namesake open a ticket under it in another shard), and a ticket found again under its id
   * before its end's release went out keeps what it claimed.
   */
  waiting: (ticketId: string) => readonly string[] | undefined = () => undefined,
): PlayerClaims {
  return new PlayerClaims((ticketId, playerIds) => {
    seat.deliver(() => {
      const held = waiting(ticketId);
      const players = held ? playerIds.filter((p) => !held.includes(p)) : playerIds;
      void shared.release(ticketId, shard, players, held !== undefined).catch((error: Error) => warn(ticketId, error));
    });
  });
}

/** The players of the ticket under this id waiting in the shard's core, if one waits (one assigned and kept for retries holds no claim). */
export function partyWaitingIn(view: CoordinatorView | undefined, ticketId: string): readonly string[] | undefined {
  const ticket = view?.ticket(ticketId);
  return ticket === undefined || ticket.state === 'assigned' ? undefined : ticket.playerIds;
}

/**
 * What a shard's seat and gateway do with a find answered from the assignment an owner kept (or
 * refused against it): a retry no core saw, so no core's `release` gives back what the edge
 * claimed for it; it is given back here, at once (nothing of it is committed).
 */
export function releasedWhenKeptAnswers(shared: Pick<SharedPlayerClaims, 'release'>, shard: number, warn: (ticketId: string, error: Error) => void): (request: FindRequest) => void {
  return (request) => {
    const players = request.party.map((p) => p.playerId);
    shared.release(request.ticketId, shard, players).catch((error: Error) => warn(request.ticketId, error));
  };
}
