import { BinaryWriter } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/generated/gamefactory/v1/attributes.js';
import { FindGameRequest, FindGamesRequest, FindGameRequest_PartitionAttributesEntry } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { decodeFindGameRequest, decodeFindGamesRequest } from '../../src/transport/grpc/find-games-decoding.js';
import { BufferReader } from '../../src/transport/grpc/wire-buffers.js';

const text = fc.oneof(fc.constantFrom('', 'difficulty', 'hard', 'version', 'v201', '__proto__', 'constructor'), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
const value: fc.Arbitrary<AttributeValue> = fc.oneof(
  fc.record({ kind: fc.record({ $case: fc.constant('stringValue' as const), value: text }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('boolValue' as const), value: fc.boolean() }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('intValue' as const), value: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('doubleValue' as const), value: fc.double() }) }),
  fc.record({ kind: fc.record({ $case: fc.constant('bytesValue' as const), value: fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)) }) }),
  fc.constant({}),
);
// A few attribute sets, reused, as tickets of one factory send the same partition.
const attributes = fc.array(fc.array(fc.tuple(text, value), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)), { minLength: 1, maxLength: 3 });
const find = (sets: Record<string, AttributeValue>[]): fc.Arbitrary<FindGameRequest> =>
  fc.record({
    ticketId: text,
    template: text,
    party: fc.array(fc.record({ playerId: text, score: fc.option(fc.double(), { nil: undefined }) }), { maxLength: 3 }),
    partitionAttributes: fc.constantFrom(...sets),
    matchableAttributes: fc.constantFrom(...sets),
    latenciesMs: fc.dictionary(text, fc.nat(), { maxKeys: 2 }),
    preferredMaps: fc.array(text, { maxLength: 2 }),
    vetoedMaps: fc.array(text, { maxLength: 2 }),
    location: fc.option(fc.record({ latitude: fc.double(), longitude: fc.double() }), { nil: undefined }),
    softAttributes: fc.option(fc.record({ values: fc.dictionary(text, text, { maxKeys: 2 }) }), { nil: undefined }),
    waitBudgetMs: fc.option(fc.nat(), { nil: undefined }),
    maxLatencyMs: fc.option(fc.nat(), { nil: undefined }),
  });
const request = attributes.chain((sets) =>
  fc.oneof(
    find(sets).map((value): FindGamesRequest => ({ request: { $case: 'find', value } })),
    fc.record({ finds: fc.array(find(sets), { maxLength: 6 }), cancels: fc.array(fc.record({ ticketId: text }), { maxLength: 2 }) }).map((value): FindGamesRequest => ({ request: { $case: 'batch', value } })),
  ),
);

/**
 * A message as plain data for comparison, each object with its prototype's identity (a key
 * "__proto__" changes a record's prototype in the generated decoder too): toStrictEqual would
 * read a key "constructor" as the record's type.
 */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    const out: Record<string, unknown> = { '<proto>': proto === Object.prototype ? 'Object' : plain(proto) };
    for (const key of Object.keys(value)) out[`k:${key}`] = plain((value as Record<string, unknown>)[key]);
    return out;
  }
  return typeof value === 'number' && Number.isNaN(value) ? 'NaN' : Object.is(value, -0) ? '-0' : value;
}

/** The generated decoder's answer and ours for the same bytes: equal messages, or the same error. */
function both(bytes: Buffer, top: 'games' | 'game') {
  const run = (decode: () => unknown) => {
    try {
      return { message: plain(decode()) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const theirs = run(() => (top === 'games' ? FindGamesRequest.decode(bytes) : FindGameRequest.decode(bytes)));
  const ours = run(() => (top === 'games' ? decodeFindGamesRequest(new BufferReader(bytes)) : decodeFindGameRequest(new BufferReader(bytes))));
  return { theirs, ours };
}

describe('FindGames request decoding', () => {
  it('decodes what the generated decoder decodes, the same messages from the same bytes', () => {
    fc.assert(
      fc.property(request, (r) => {
        const bytes = Buffer.from(FindGamesRequest.encode(r).finish());
        const { theirs, ours } = both(bytes, 'games');
        expect(ours).toStrictEqual(theirs);
        if (r.request?.$case === 'find') {
          const inner = Buffer.from(FindGameRequest.encode(r.request.value).finish());
          const single = both(inner, 'game');
          expect(single.ours).toStrictEqual(single.theirs);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('damaged bytes, map entries apart and fields in any order give the same messages or errors', () => {
    // A FindGameRequest's fields as separate chunks, shuffled, some entries split off their map's run, some bytes changed.
    const entry = (tag: number, key: string, v: AttributeValue) => {
      const w = new BinaryWriter().uint32(tag).fork();
      FindGameRequest_PartitionAttributesEntry.encode({ key, value: v }, w);
      return Buffer.from(w.join().finish());
    };
    const chunks = fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(34, 42), text, value).map(([tag, key, v]) => entry(tag, key, v)),
        find([{}]).map((f) => Buffer.from(FindGameRequest.encode({ ...f, partitionAttributes: {}, matchableAttributes: {} }).finish())),
        fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)),
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(chunks, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 2 }), (parts, damage) => {
        const bytes = Buffer.concat(parts);
        for (const [at, b] of damage) if (bytes.length > 0) bytes[at % bytes.length] = b;
        const single = both(bytes, 'game');
        expect(single.ours).toStrictEqual(single.theirs);
        const wrapped = Buffer.concat([Buffer.from(new BinaryWriter().uint32(10).uint32(bytes.length).finish()), bytes]);
        const outer = both(wrapped, 'games');
        expect(outer.ours).toStrictEqual(outer.theirs);
      }),
      { numRuns: 3000 },
    );
  });
});
