import type { PartialGame } from '../../competitive/index.js';

/**
 * An open backfill request as it is kept, and stored so that a restarted coordinator takes it up
 * again once its server re-announces the game: plain data (soft attributes as a record), scores
 * as they were resolved when it was accepted (a ladder's ratings then).
 */
export interface BackfillRecord {
  readonly backfillId: string;
  /** The server that hosts the game: the request's owner, the only one who may change or cancel it. */
  readonly serverId: string;
  readonly gameId: string;
  readonly factory: string;
  readonly players: readonly {
    readonly playerId: string;
    readonly team: number;
    readonly score: number;
    readonly softAttributes?: Readonly<Record<string, string>>;
  }[];
  /** '' when unknown: then any map (region) will do. */
  readonly map: string;
  readonly region: string;
  /** On the coordinator's clock: the request's wait (and so its window) runs from here. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * Durable backfill requests: LMDB in the embedded process. The edge applies the core's
 * `storeBackfill` and `unstoreBackfill` effects here with the step's other writes.
 */
export interface BackfillStore {
  save(record: BackfillRecord): void;
  remove(backfillId: string): void;
}

/** The matcher's view of a record: the partial game it fills. */
export function partialGameOf(record: BackfillRecord): PartialGame {
  return {
    backfillId: record.backfillId,
    players: record.players.map((p) => ({
      playerId: p.playerId,
      team: p.team,
      score: p.score,
      ...(p.softAttributes !== undefined && { softAttributes: new Map(Object.entries(p.softAttributes)) }),
    })),
    map: record.map === '' ? undefined : record.map,
    region: record.region === '' ? undefined : record.region,
    enqueuedAt: record.createdAt,
  };
}

/** Seats a request still asks for. */
export function seatsAsked(record: BackfillRecord, teams: number, teamSize: number): number {
  return teams * teamSize - record.players.length;
}
