import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Assignment, FindRequest } from '../../src/coordinator/messages.js';
import type { TicketRecord } from '../../src/coordinator/tickets/ticket-record.js';
import { RelayDecodeError } from '../../src/redis/relay/compact-codec.js';
import { decode, decodeEntry, decodeRecord, encode, encodeRecord, stringifyWithMaps, type InboxMessage, type OutMessage } from '../../src/redis/relay/relay-codec.js';

const text = fc.string({ maxLength: 12 });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const map = <V>(value: fc.Arbitrary<V>) => fc.uniqueArray(fc.tuple(text, value), { maxLength: 4, selector: ([k]) => k }).map((e) => new Map(e));

const request: fc.Arbitrary<FindRequest> = fc.record(
  {
    ticketId: text,
    template: text,
    party: fc.array(fc.record({ playerId: text, score: optional(finite) }), { minLength: 1, maxLength: 4 }),
    partition: map(text),
    matchable: map(text),
    latenciesMs: map(finite),
    preferredMaps: fc.array(text, { maxLength: 3 }),
    vetoedMaps: fc.array(text, { maxLength: 3 }),
    waitBudgetMs: optional(fc.nat()),
    maxLatencyMs: optional(fc.nat()),
    location: optional(fc.record({ latitude: finite, longitude: finite })),
    softAttributes: optional(map(text)),
    caller: optional(fc.record({ role: fc.constantFrom('player' as const, 'gateway' as const), subject: text, playerIds: optional(fc.array(text, { maxLength: 3 })) }, { requiredKeys: ['role', 'subject'] })),
  },
  { requiredKeys: ['ticketId', 'template', 'party', 'partition', 'matchable', 'latenciesMs', 'preferredMaps', 'vetoedMaps'] },
);

const owner = fc.record({ subject: text, role: fc.constantFrom('player' as const, 'gateway' as const), partyPlayerIds: fc.array(text, { maxLength: 3 }) });

const record: fc.Arbitrary<TicketRecord> = fc.record(
  {
    request,
    createdAt: fc.nat(),
    arrival: fc.nat(),
    owner,
    placed: fc.record({ requestId: text, serverId: text, token: text, at: fc.nat(), team: fc.nat(3), map: text, region: text }),
  },
  { requiredKeys: ['request', 'createdAt', 'arrival'] },
);

const assignment: fc.Arbitrary<Assignment> = fc.record(
  {
    gameId: text,
    serverId: text,
    serverEndpoint: text,
    factory: text,
    reservationToken: text,
    created: fc.boolean(),
    map: text,
    region: text,
    team: fc.nat(3),
    quality: fc.record({ favouriteWinProbability: finite, matchQuality: finite, gapSigma: finite }),
  },
  { requiredKeys: ['gameId', 'serverId', 'serverEndpoint', 'factory', 'reservationToken', 'created', 'map', 'region', 'team'] },
);

const assigned: fc.Arbitrary<OutMessage> = fc.record(
  {
    k: fc.constant('update' as const),
    ticketId: text,
    update: assignment.map((a) => ({ kind: 'assigned' as const, assignment: a })),
    kept: fc.record({ fingerprint: text, owner }, { requiredKeys: ['fingerprint'] }),
  },
  { requiredKeys: ['k', 'ticketId', 'update'] },
);

const find: fc.Arbitrary<InboxMessage> = fc.record({ k: fc.constant('find' as const), node: text, request });

describe('the compact codec (records, finds, assignments)', () => {
  it('gives back what it was given', () => {
    fc.assert(fc.property(record, (r) => {
      expect(decodeRecord(encodeRecord(r))).toEqual(r);
    }));
    fc.assert(fc.property(find, (m) => {
      expect(decode(encode(m))).toEqual(m);
    }));
    fc.assert(fc.property(assigned, (m) => {
      expect(decode(encode(m))).toEqual(m);
    }));
  });

  it('still reads the object form written before', () => {
    fc.assert(fc.property(record, (r) => {
      expect(decodeRecord(stringifyWithMaps(r))).toEqual(r);
    }));
    fc.assert(fc.property(find, assigned, (f, a) => {
      expect(decode(stringifyWithMaps(f))).toEqual(f);
      expect(decode(stringifyWithMaps(a))).toEqual(a);
    }));
  });

  it('is smaller than the object form', () => {
    fc.assert(fc.property(record, (r) => encodeRecord(r).length < stringifyWithMaps(r).length));
  });

  it('answers a truncated or damaged text with one clear error, never a half-built value', () => {
    fc.assert(
      fc.property(fc.oneof(find, assigned), fc.nat(), (m, cut) => {
        const whole = encode(m);
        const truncated = whole.slice(0, cut % whole.length);
        expect(() => decode(truncated)).toThrow(RelayDecodeError);
      }),
    );
    fc.assert(
      fc.property(record, fc.nat(), (r, cut) => {
        const whole = encodeRecord(r);
        expect(() => decodeRecord(whole.slice(0, cut % whole.length))).toThrow(RelayDecodeError);
      }),
    );
    // Well-formed JSON of the wrong shape: a field of another type, a field missing, another tag.
    expect(() => decode('["f1","node",["t","diablo",[["p"]],[],[],[],[],[],null,null,null,null]]')).toThrow(/request has 12 fields/);
    expect(() => decode('["a1","t","g","s","e","f","tok","yes","","",0,null,null]')).toThrow(/created is not a boolean/);
    expect(() => decode('["x9",1]')).toThrow(RelayDecodeError);
    expect(() => decode('42')).toThrow(/not a relay message/);
  });

  it('turns a damaged stream entry into one to skip, so it cannot block the entries behind it', () => {
    fc.assert(
      fc.property(fc.string(), (garbage) => {
        const entry = decodeEntry<InboxMessage>(garbage);
        // Either a real message (the garbage happened to be one) or one marked unreadable: never a throw.
        expect(typeof entry.k).toBe('string');
      }),
    );
    expect(decodeEntry<InboxMessage>('["f1","n"')).toEqual({ k: 'unreadable', reason: expect.stringContaining('not JSON') });
    expect(decodeEntry<OutMessage>(undefined)).toEqual({ k: 'unreadable', reason: expect.stringContaining('no message field') });
    expect(() => encode({ k: 'unreadable', reason: 'x' })).toThrow(RangeError);
  });
});
