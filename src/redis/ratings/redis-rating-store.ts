import type { HistoryEntry, LeaderboardEntry, RatingStore, RecordedResult } from '../../ratings/rating-store.js';
import type { PlayerRating } from '../../ratings/rating-system.js';
import { defineScripts, runScript, type RedisClient } from '../script-set.js';
import { entriesOfRead } from '../stream-reply.js';
import { LadderMirror, type LadderChange } from './ladder-mirror.js';
import { ladderKeys } from './rating-keys.js';

export interface RedisRatingStoreOptions {
  /** The ladders of factories.yaml, mirrored from the start; another ladder is mirrored from its first use. */
  readonly ladders: readonly string[];
  /** The number a ladder's board is ordered by (ratings/index.ts `standing`). */
  readonly standing: (ladder: string, rating: PlayerRating) => number;
  /** How often to read the other nodes' changes. Default 100 ms. */
  readonly followEveryMs?: number;
  /** History entries kept in memory per player for `history` (all stay in Redis: `fullHistory`). Default 50. */
  readonly historyPerPlayer?: number;
  /** How long `hasResult` remembers a game id in memory; Redis refuses a repeat for good. Default one day. */
  readonly resultMemoryMs?: number;
  /** Change stream entries kept per ladder; a node that falls further behind reloads the ladder. Default 10,000. */
  readonly changesKept?: number;
  readonly now?: () => number;
}

/** A result refused because a player's rating moved on another node since it was read here. */
export class RatingConflict extends Error {
  constructor(
    readonly ladder: string,
    readonly player: string,
  ) {
    super(`ratings: "${player}" on ladder "${ladder}" was rated on another node since this node read the rating; report the result again`);
  }
}

interface Followed {
  lastId: string;
  version: number;
}

/**
 * The RatingStore port on Redis, shared by every node: a result is applied once per ladder and
 * game id whichever node it reaches (rating-record-6), and every node sees every rating.
 *
 * The port's reads are synchronous (the core reads a rating while matching), so each node keeps a
 * mirror in memory (LadderMirror: ratings, each ladder's RankedLadder, recent history and game
 * ids), loaded at open and kept current by reading each ladder's change stream every
 * `followEveryMs`: another node's result shows here within about that long. Writes go to Redis
 * first and are applied to the mirror when Redis has them. A result computed from a rating that
 * moved on another node meanwhile is refused (RatingConflict) rather than applied on a stale base.
 *
 * In Redis each ladder's board is also a sorted set (score = -standing), so `rankNow` and
 * `leaderboardNow` answer from Redis in O(log n) without the mirror; the cost is one ZADD per
 * rated player per game and ~100 bytes per player in Redis memory.
 */
export class RedisRatingStore implements RatingStore {
  private readonly mirror: LadderMirror;
  private readonly followed = new Map<string, Followed>();
  private readonly loading = new Map<string, Promise<void>>();
  /** One read of a ladder's changes at a time, so each entry is checked against the one before. */
  private readonly reading = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private following: Promise<void> = Promise.resolve();
  private running = true;
  private readonly now: () => number;
  private readonly changesKept: number;

  private constructor(
    private readonly client: RedisClient,
    private readonly options: RedisRatingStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.changesKept = options.changesKept ?? 10_000;
    this.mirror = new LadderMirror(options.standing, { historyPerPlayer: options.historyPerPlayer ?? 50, resultMemoryMs: options.resultMemoryMs ?? 86_400_000 });
  }

  static async open(client: RedisClient, options: RedisRatingStoreOptions): Promise<RedisRatingStore> {
    await defineScripts(client);
    const store = new RedisRatingStore(client, options);
    await Promise.all(options.ladders.map((ladder) => store.ensure(ladder)));
    store.schedule();
    return store;
  }

  get(ladder: string, player: string): PlayerRating | undefined {
    return this.mirror.boards.get(ladder, player);
  }

  async put(ladder: string, player: string, rating: PlayerRating): Promise<void> {
    await this.ensure(ladder);
    const k = ladderKeys(ladder);
    const [revision] = await runScript<[number, number]>(
      this.client,
      'gfRatingPut',
      [k.ratings, k.board, k.changes, k.version],
      [player, this.options.standing(ladder, rating), JSON.stringify(rating), this.changesKept],
    );
    this.mirror.apply(ladder, { players: [{ player, revision, rating }] }, this.now());
  }

  hasResult(ladder: string, gameId: string): boolean {
    return this.mirror.hasResult(ladder, gameId, this.now());
  }

  async recordResult(result: RecordedResult): Promise<boolean> {
    const { ladder, gameId, at } = result;
    if (this.hasResult(ladder, gameId)) return false;
    // Read now, in the same turn as the caller read the ratings it rated from.
    const players = [...result.ratings].map(([player, after]) => {
      const before = this.get(ladder, player) ?? after;
      return { player, revision: this.mirror.revision(ladder, player), rating: after, history: { gameId, at, before, after } };
    });
    await this.ensure(ladder);
    const k = ladderKeys(ladder);
    const args: (string | number)[] = [gameId, at, this.changesKept];
    for (const p of players) args.push(p.player, p.revision, this.options.standing(ladder, p.rating), JSON.stringify(p.rating), JSON.stringify(p.history));
    const answer = await runScript<[number, string | number]>(this.client, 'gfRatingRecord', [k.results, k.ratings, k.board, k.changes, k.version, k.historyPrefix], args);
    if (answer[0] === 0) {
      this.mirror.apply(ladder, { gameId, players: [] }, this.now());
      return false;
    }
    if (answer[0] === -1) {
      await this.readChanges(ladder);
      throw new RatingConflict(ladder, String(answer[1]));
    }
    const applied = players.map((p) => ({ ...p, revision: p.revision + 1 }));
    this.mirror.apply(ladder, { gameId, players: applied }, this.now());
    return true;
  }

  /** The most recent `limit` of the player's last games kept in memory (`historyPerPlayer`). */
  history(ladder: string, player: string, limit: number): HistoryEntry[] {
    return this.mirror.history(ladder, player, limit);
  }

  leaderboard(ladder: string, offset: number, limit: number): LeaderboardEntry[] {
    return this.mirror.boards.leaderboard(ladder, offset, limit);
  }

  rank(ladder: string, player: string): number | undefined {
    return this.mirror.boards.rank(ladder, player);
  }

  size(ladder: string): number {
    return this.mirror.boards.size(ladder);
  }

  /** Reads every mirrored ladder's changes now: what other nodes recorded is visible after this. */
  async catchUp(): Promise<void> {
    await Promise.all([...this.followed.keys()].map((ladder) => this.readChanges(ladder)));
  }

  /** 1-based rank straight from Redis (ZRANK, O(log n)), current to the last write of any node. */
  async rankNow(ladder: string, player: string): Promise<number | undefined> {
    const rank = await this.client.zrank(ladderKeys(ladder).board, player);
    return rank === null ? undefined : rank + 1;
  }

  /** A page of the board straight from Redis: O(log n + limit). */
  async leaderboardNow(ladder: string, offset: number, limit: number): Promise<LeaderboardEntry[]> {
    const k = ladderKeys(ladder);
    if (limit <= 0) return [];
    const page = await this.client.zrange(k.board, String(offset), String(offset + limit - 1), 'WITHSCORES');
    const players = page.filter((_, i) => i % 2 === 0);
    if (players.length === 0) return [];
    const stored = await this.client.hmget(k.ratings, ...players);
    return players.map((player, i) => ({ player, rank: offset + i + 1, standing: -Number(page[2 * i + 1]), rating: parseStored(stored[i]!).rating }));
  }

  /** Every game of the player on the ladder, newest first, from Redis. */
  async fullHistory(ladder: string, player: string, limit: number): Promise<HistoryEntry[]> {
    if (limit <= 0) return [];
    const list = await this.client.lrange(ladderKeys(ladder).historyPrefix + player, 0, limit - 1);
    return list.map((entry) => JSON.parse(entry) as HistoryEntry);
  }

  async close(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.following;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.following = this.catchUp()
        .catch(() => undefined) // Redis unreachable: the mirror serves what it has, and catches up later
        .finally(() => this.schedule());
    }, this.options.followEveryMs ?? 100);
  }

  /** Loads a ladder into the mirror once: its retained changes (recent history and games), then every rating. */
  private ensure(ladder: string): Promise<void> {
    let loading = this.loading.get(ladder);
    if (!loading) {
      loading = this.load(ladder);
      this.loading.set(ladder, loading);
      loading.catch(() => this.loading.delete(ladder));
    }
    return loading;
  }

  private async load(ladder: string): Promise<void> {
    const k = ladderKeys(ladder);
    // Changes after the last one read here are replayed by the follower (idempotent by revision).
    const backlog = await this.client.xrange(k.changes, '-', '+');
    const now = this.now();
    for (const [, fields] of backlog) this.mirror.apply(ladder, parseChange(fields), now);
    let cursor = '0';
    do {
      const [next, flat] = await this.client.hscan(k.ratings, cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const { revision, rating } = parseStored(flat[i + 1]!);
        if (revision > this.mirror.revision(ladder, flat[i]!)) this.mirror.load(ladder, flat[i]!, revision, rating);
      }
    } while (cursor !== '0');
    const last = backlog.at(-1);
    this.followed.set(ladder, { lastId: last?.[0] ?? '0-0', version: last ? parseChange(last[1]).version : 0 });
  }

  private readChanges(ladder: string): Promise<void> {
    const next = (this.reading.get(ladder) ?? Promise.resolve()).then(() => this.readChangesNow(ladder));
    const settled = next.catch(() => undefined);
    this.reading.set(ladder, settled);
    void settled.then(() => {
      if (this.reading.get(ladder) === settled) this.reading.delete(ladder);
    });
    return next;
  }

  private async readChangesNow(ladder: string): Promise<void> {
    const followed = this.followed.get(ladder);
    if (!followed) return;
    const read = await this.client.xread('COUNT', 1000, 'STREAMS', ladderKeys(ladder).changes, followed.lastId);
    const now = this.now();
    for (const [id, fields] of entriesOfRead(read)) {
      const change = parseChange(fields);
      if (change.version !== followed.version + 1) {
        // Entries were trimmed before this node read them: load the ladder again.
        this.followed.delete(ladder);
        this.loading.delete(ladder);
        await this.ensure(ladder);
        return;
      }
      this.mirror.apply(ladder, change, now);
      followed.lastId = id;
      followed.version = change.version;
    }
  }
}

function parseStored(stored: string): { revision: number; rating: PlayerRating } {
  const space = stored.indexOf(' ');
  return { revision: Number(stored.slice(0, space)), rating: JSON.parse(stored.slice(space + 1)) as PlayerRating };
}

/** A change stream entry: field `c`, JSON { v, g?, p: [player, revision, rating JSON, history JSON | false][] }. */
function parseChange(fields: readonly string[]): LadderChange {
  const c = JSON.parse(fields[fields.indexOf('c') + 1]!) as { v: number; g?: string; p: [string, number, string, string | false][] | Record<string, never> };
  // cjson encodes an empty Lua table as {}, not [].
  const players = Array.isArray(c.p) ? c.p : [];
  return {
    version: c.v,
    gameId: c.g,
    players: players.map(([player, revision, rating, history]) => ({
      player,
      revision,
      rating: JSON.parse(rating) as PlayerRating,
      history: history === false ? undefined : (JSON.parse(history) as HistoryEntry),
    })),
  };
}
