import type { FindRequest, Player } from '../coordinator/messages.js';
import type { PlacedRecord, TicketRecord } from '../coordinator/tickets/ticket-record.js';
import type { TicketOwner } from '../security/roles/ticket-ownership.js';

/**
 * How a waiting ticket is written in LMDB. A record is kept per waiting ticket and LMDB's pages
 * count in the process's RSS, so the common record is a positional list (MessagePack then spells
 * no field names): a one-player cooperative ticket takes 55 bytes instead of 137 as an object.
 *
 *   [2, template, party, partition, matchable, createdAt, arrival, rest?, placed?]
 *
 * party: per player its id, or [id, score] when it has a score; partition and matchable: flat
 * [key, value, key, value...]; placed (the embedded process writes it for every ticket whose game
 * is ordered): [requestId, serverId, token, at, team, map, region]; rest: whatever else the
 * ticket has (StoredRest), null when there is a placed and nothing else, left out when
 * nothing. The ticket id is the key only. Records of the two earlier formats (objects, with or
 * without every field spelled out) read as before.
 */
export type TupleRecord = [
  format: typeof TUPLE_FORMAT,
  template: string,
  party: (string | [string, number])[],
  partition: string[],
  matchable: string[],
  createdAt: number,
  arrival: number,
  rest?: StoredRest | null,
  placed?: StoredPlaced,
];

type StoredPlaced = [requestId: string, serverId: string, token: string, at: number, team: number, map: string, region: string];

const TUPLE_FORMAT = 2;

/** The rarer fields, spelled out; absent ones left out. */
interface StoredRest {
  readonly latenciesMs?: [string, number][];
  readonly preferredMaps?: readonly string[];
  readonly vetoedMaps?: readonly string[];
  readonly waitBudgetMs?: number;
  readonly maxLatencyMs?: number;
  readonly location?: { readonly latitude: number; readonly longitude: number };
  readonly softAttributes?: [string, string][];
  /** No party: the ticket's own. */
  readonly owner?: StoredOwner;
}

type StoredOwner = Omit<TicketOwner, 'partyPlayerIds'> & { readonly partyPlayerIds?: readonly string[] };

/** The object formats written before: the request as plain data (maps as entry lists). */
export interface ObjectRecord {
  readonly request: Omit<FindRequest, 'ticketId' | 'partition' | 'matchable' | 'latenciesMs' | 'party' | 'preferredMaps' | 'vetoedMaps' | 'caller' | 'softAttributes'> & {
    readonly ticketId?: string;
    readonly softAttributes?: [string, string][];
    readonly party: { playerId: string; score?: number | null }[];
    readonly partition: [string, string][];
    readonly matchable?: [string, string][];
    readonly latenciesMs?: [string, number][];
    readonly preferredMaps?: readonly string[];
    readonly vetoedMaps?: readonly string[];
  };
  readonly createdAt: number;
  readonly arrival: number;
  readonly owner?: StoredOwner;
  readonly placed?: PlacedRecord;
}

export type StoredTicket = TupleRecord | ObjectRecord;

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Exact size, filled by index: a list grown by push takes room for 17. */
function flat(map: ReadonlyMap<string, string>): string[] {
  const list = new Array<string>(map.size * 2);
  let i = 0;
  for (const key of map.keys()) {
    list[i++] = key;
    list[i++] = map.get(key)!;
  }
  return list;
}

function unflat(list: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) map.set(list[i]!, list[i + 1]!);
  return map;
}

/** Written once per ticket that waits, on the hot path: no more allocated than the record itself. */
export function encodeTicket(record: TicketRecord): TupleRecord {
  const r = record.request;
  const party = r.party.map((p) => (p.score === undefined ? p.playerId : ([p.playerId, p.score] as [string, number])));
  const partition = flat(r.partition);
  const matchable = flat(r.matchable);
  const common = r.latenciesMs.size === 0 && r.preferredMaps.length === 0 && r.vetoedMaps.length === 0 && r.waitBudgetMs === undefined && r.maxLatencyMs === undefined && r.location === undefined && r.softAttributes === undefined && record.owner === undefined;
  const p = record.placed;
  if (!p) return common ? [TUPLE_FORMAT, r.template, party, partition, matchable, record.createdAt, record.arrival] : [TUPLE_FORMAT, r.template, party, partition, matchable, record.createdAt, record.arrival, restOf(record)];
  const placed: StoredPlaced = [p.requestId, p.serverId, p.token, p.at, p.team, p.map, p.region];
  return [TUPLE_FORMAT, r.template, party, partition, matchable, record.createdAt, record.arrival, common ? null : restOf(record), placed];
}

function restOf(record: TicketRecord): StoredRest {
  const r = record.request;
  const owner = record.owner;
  return {
    ...(r.latenciesMs.size > 0 && { latenciesMs: [...r.latenciesMs] }),
    ...(r.preferredMaps.length > 0 && { preferredMaps: r.preferredMaps }),
    ...(r.vetoedMaps.length > 0 && { vetoedMaps: r.vetoedMaps }),
    ...(r.waitBudgetMs !== undefined && { waitBudgetMs: r.waitBudgetMs }),
    ...(r.maxLatencyMs !== undefined && { maxLatencyMs: r.maxLatencyMs }),
    ...(r.location !== undefined && { location: r.location }),
    ...(r.softAttributes !== undefined && { softAttributes: [...r.softAttributes] }),
    ...(owner && {
      owner: sameList(owner.partyPlayerIds, r.party.map((p) => p.playerId))
        ? { subject: owner.subject, role: owner.role }
        : { subject: owner.subject, role: owner.role, partyPlayerIds: [...owner.partyPlayerIds] },
    }),
  };
}

export function decodeTicket(ticketId: string, value: StoredTicket): TicketRecord {
  return Array.isArray(value) ? decodeTuple(ticketId, value) : decodeObject(ticketId, value);
}

function decodeTuple(ticketId: string, value: TupleRecord): TicketRecord {
  const [format, template, storedParty, partition, matchable, createdAt, arrival, storedRest, p] = value;
  const rest = storedRest ?? {};
  if (format !== TUPLE_FORMAT) throw new Error(`ticket "${ticketId}": stored in an unknown format ${String(format)}`);
  const party: Player[] = storedParty.map((p) => (typeof p === 'string' ? { playerId: p, score: undefined } : { playerId: p[0], score: p[1] }));
  return withOwnerAndPlaced(
    {
      request: {
        ticketId,
        template,
        party,
        partition: unflat(partition),
        matchable: unflat(matchable),
        latenciesMs: new Map(rest.latenciesMs ?? []),
        preferredMaps: rest.preferredMaps ?? [],
        vetoedMaps: rest.vetoedMaps ?? [],
        ...(rest.waitBudgetMs !== undefined && { waitBudgetMs: rest.waitBudgetMs }),
        ...(rest.maxLatencyMs !== undefined && { maxLatencyMs: rest.maxLatencyMs }),
        ...(rest.location !== undefined && { location: rest.location }),
        ...(rest.softAttributes !== undefined && { softAttributes: new Map(rest.softAttributes) }),
      },
      createdAt,
      arrival,
    },
    rest.owner,
    p && { requestId: p[0], serverId: p[1], token: p[2], at: p[3], team: p[4], map: p[5], region: p[6] },
  );
}

function decodeObject(key: string, value: ObjectRecord): TicketRecord {
  const { softAttributes, ...r } = value.request;
  const party = r.party.map((p) => ({ playerId: p.playerId, score: p.score ?? undefined }));
  return withOwnerAndPlaced(
    {
      request: {
        ...r,
        ticketId: r.ticketId ?? key,
        party,
        partition: new Map(r.partition),
        matchable: new Map(r.matchable ?? []),
        latenciesMs: new Map(r.latenciesMs ?? []),
        preferredMaps: r.preferredMaps ?? [],
        vetoedMaps: r.vetoedMaps ?? [],
        ...(softAttributes !== undefined && { softAttributes: new Map(softAttributes) }),
      },
      createdAt: value.createdAt,
      arrival: value.arrival,
    },
    value.owner,
    value.placed,
  );
}

function withOwnerAndPlaced(record: TicketRecord, owner: StoredOwner | undefined, placed: PlacedRecord | undefined): TicketRecord {
  return {
    ...record,
    ...(owner ? { owner: { subject: owner.subject, role: owner.role, partyPlayerIds: owner.partyPlayerIds ?? record.request.party.map((p) => p.playerId) } } : {}),
    ...(placed ? { placed } : {}),
  };
}
