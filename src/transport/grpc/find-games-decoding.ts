import type { BinaryReader } from '@bufbuild/protobuf/wire';
import type { AttributeValue } from '../../generated/gamefactory/v1/attributes.js';
import {
  CancelFindRequest,
  FindGameRequest_LatenciesMsEntry,
  FindGameRequest_MatchableAttributesEntry,
  FindGameRequest_PartitionAttributesEntry,
  GeoLocation,
  Player,
  SoftAttributes,
  type FindGameRequest,
  type FindGamesBatch,
  type FindGamesRequest,
} from '../../generated/gamefactory/v1/matchmaker.js';
import { BufferReader } from './wire-buffers.js';

/*
 * FindGameRequest and FindGamesRequest decoded as the generated decoders decode them, field for
 * field (the same loop, the same handling of unknown fields and wrong wire types, the generated
 * decoders for every nested message), but for the two attribute maps. Nearly every ticket of a
 * factory sends the same partition (and one of a few matchable sets): the generated decoder
 * builds an entry object, a value object and its case object and decodes two strings per
 * attribute, into a fresh record per ticket, ~1 KB a find. Here the bytes of a map's entries,
 * as one run (the encoders write a map's entries together), are looked up: the same bytes always
 * decode to the same record, so one record is decoded per distinct run, frozen and shared, and
 * `decodeAttributes` (codec.ts) finds its set by the record's identity. A map whose entries come
 * in several runs is decoded as the generated decoder would, into a copy of the shared record.
 */

/** Runs longer than this are decoded each time, not kept. */
const MAX_RUN_BYTES = 1024;
/** Distinct runs kept per map field; when full the cache starts over. */
const MAX_RUNS = 4096;

type EntryDecoder = (reader: BinaryReader, length: number) => { key: string; value?: AttributeValue | undefined };

class RunCache {
  private readonly records = new Map<string, Readonly<Record<string, AttributeValue>>>();

  constructor(
    /** The map's field tag as its single byte (field number << 3 | length-delimited). */
    private readonly tag: number,
    private readonly decodeEntry: EntryDecoder,
  ) {}

  /**
   * The entries from the reader's position, whose tag (one byte, already read) starts at
   * `tagStart`, up to the last consecutive entry of the same field before `end`: the record they
   * decode to, shared; the reader is left after them. Undefined when the run cannot be cut from
   * the bytes as they are (then nothing was read: the caller decodes the entry itself).
   */
  take(reader: BufferReader, bytes: Buffer, tagStart: number, end: number): Readonly<Record<string, AttributeValue>> | undefined {
    let at = tagStart;
    while (at < end && bytes[at] === this.tag) {
      // The entry's length: a varint of at most 5 bytes.
      let length = 0;
      let shift = 0;
      let p = at + 1;
      for (;;) {
        if (p >= end || shift > 28) return undefined;
        const b = bytes[p++]!;
        length += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
        shift += 7;
      }
      at = p + length;
      if (at > end) return undefined;
    }
    if (at - tagStart > MAX_RUN_BYTES) return undefined;
    const key = bytes.toString('latin1', tagStart, at);
    let record = this.records.get(key);
    if (record === undefined) {
      record = this.decodeRun(reader, tagStart, at);
      if (record === undefined) {
        reader.pos = tagStart + 1; // as if nothing was read: the caller decodes the entry itself
        return undefined;
      }
      if (this.records.size >= MAX_RUNS) this.records.clear();
      this.records.set(key, record);
    }
    reader.pos = at;
    return record;
  }

  /**
   * The run's entries as the generated decoder would add them to an empty record; undefined when
   * an entry does not end where its length says (the generated decoder would then read on from
   * where it stopped) or a key changed the record's prototype ("__proto__"): those are left to it.
   */
  private decodeRun(reader: BufferReader, tagStart: number, end: number): Readonly<Record<string, AttributeValue>> | undefined {
    const record: Record<string, AttributeValue> = {};
    reader.pos = tagStart + 1;
    for (;;) {
      const length = reader.uint32();
      const entryEnd = reader.pos + length;
      const entry = this.decodeEntry(reader, length);
      if (reader.pos !== entryEnd) return undefined;
      if (entry.value !== undefined) record[entry.key] = entry.value;
      if (reader.pos >= end) break;
      reader.pos++; // the next entry's tag, one byte
    }
    return Object.getPrototypeOf(record) === Object.prototype ? Object.freeze(record) : undefined;
  }
}

const partitionRuns = new RunCache(34, FindGameRequest_PartitionAttributesEntry.decode);
const matchableRuns = new RunCache(42, FindGameRequest_MatchableAttributesEntry.decode);

/** FindGameRequest.decode, its attribute maps through the run caches. */
export function decodeFindGameRequest(reader: BufferReader, length?: number): FindGameRequest {
  const bytes = reader.source;
  const end = length === undefined ? reader.len : reader.pos + length;
  const message: FindGameRequest = {
    ticketId: '',
    template: '',
    party: [],
    partitionAttributes: {},
    matchableAttributes: {},
    latenciesMs: {},
    preferredMaps: [],
    vetoedMaps: [],
    location: undefined,
    softAttributes: undefined,
    waitBudgetMs: undefined,
    maxLatencyMs: undefined,
  };
  /** Which maps hold a shared record now (a later entry of theirs goes into a copy). */
  let partitionShared = false;
  let matchableShared = false;
  let partitionSeen = false;
  let matchableSeen = false;
  while (reader.pos < end) {
    const tagStart = reader.pos;
    const tag = reader.uint32();
    switch (tag >>> 3) {
      case 1: {
        if (tag !== 10) break;
        message.ticketId = reader.string();
        continue;
      }
      case 2: {
        if (tag !== 18) break;
        message.template = reader.string();
        continue;
      }
      case 3: {
        if (tag !== 26) break;
        message.party.push(Player.decode(reader, reader.uint32()));
        continue;
      }
      case 4: {
        if (tag !== 34) break;
        if (!partitionSeen) {
          partitionSeen = true;
          const shared = partitionRuns.take(reader, bytes, tagStart, end);
          if (shared !== undefined) {
            message.partitionAttributes = shared;
            partitionShared = true;
            continue;
          }
        }
        if (partitionShared) {
          message.partitionAttributes = { ...message.partitionAttributes };
          partitionShared = false;
        }
        const entry4 = FindGameRequest_PartitionAttributesEntry.decode(reader, reader.uint32());
        if (entry4.value !== undefined) message.partitionAttributes[entry4.key] = entry4.value;
        continue;
      }
      case 5: {
        if (tag !== 42) break;
        if (!matchableSeen) {
          matchableSeen = true;
          const shared = matchableRuns.take(reader, bytes, tagStart, end);
          if (shared !== undefined) {
            message.matchableAttributes = shared;
            matchableShared = true;
            continue;
          }
        }
        if (matchableShared) {
          message.matchableAttributes = { ...message.matchableAttributes };
          matchableShared = false;
        }
        const entry5 = FindGameRequest_MatchableAttributesEntry.decode(reader, reader.uint32());
        if (entry5.value !== undefined) message.matchableAttributes[entry5.key] = entry5.value;
        continue;
      }
      case 6: {
        if (tag !== 50) break;
        const entry6 = FindGameRequest_LatenciesMsEntry.decode(reader, reader.uint32());
        if (entry6.value !== undefined) message.latenciesMs[entry6.key] = entry6.value;
        continue;
      }
      case 7: {
        if (tag !== 58) break;
        message.preferredMaps.push(reader.string());
        continue;
      }
      case 8: {
        if (tag !== 66) break;
        message.vetoedMaps.push(reader.string());
        continue;
      }
      case 9: {
        if (tag !== 74) break;
        message.location = GeoLocation.decode(reader, reader.uint32());
        continue;
      }
      case 10: {
        if (tag !== 82) break;
        message.softAttributes = SoftAttributes.decode(reader, reader.uint32());
        continue;
      }
      case 11: {
        if (tag !== 88) break;
        message.waitBudgetMs = reader.uint32();
        continue;
      }
      case 12: {
        if (tag !== 96) break;
        message.maxLatencyMs = reader.uint32();
        continue;
      }
    }
    if ((tag & 7) === 4 || tag === 0) break;
    reader.skip(tag & 7);
  }
  return message;
}

/** FindGamesBatch.decode through decodeFindGameRequest. */
function decodeFindGamesBatch(reader: BufferReader, length: number): FindGamesBatch {
  const end = reader.pos + length;
  const message: FindGamesBatch = { finds: [], cancels: [] };
  while (reader.pos < end) {
    const tag = reader.uint32();
    switch (tag >>> 3) {
      case 1: {
        if (tag !== 10) break;
        message.finds.push(decodeFindGameRequest(reader, reader.uint32()));
        continue;
      }
      case 2: {
        if (tag !== 18) break;
        message.cancels.push(CancelFindRequest.decode(reader, reader.uint32()));
        continue;
      }
    }
    if ((tag & 7) === 4 || tag === 0) break;
    reader.skip(tag & 7);
  }
  return message;
}

/** FindGamesRequest.decode through decodeFindGameRequest. */
export function decodeFindGamesRequest(reader: BufferReader): FindGamesRequest {
  const end = reader.len;
  const message: FindGamesRequest = { request: undefined };
  while (reader.pos < end) {
    const tag = reader.uint32();
    switch (tag >>> 3) {
      case 1: {
        if (tag !== 10) break;
        message.request = { $case: 'find', value: decodeFindGameRequest(reader, reader.uint32()) };
        continue;
      }
      case 2: {
        if (tag !== 18) break;
        message.request = { $case: 'cancel', value: CancelFindRequest.decode(reader, reader.uint32()) };
        continue;
      }
      case 3: {
        if (tag !== 26) break;
        message.request = { $case: 'batch', value: decodeFindGamesBatch(reader, reader.uint32()) };
        continue;
      }
    }
    if ((tag & 7) === 4 || tag === 0) break;
    reader.skip(tag & 7);
  }
  return message;
}
