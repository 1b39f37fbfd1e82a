import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decode, encode, type InboxMessage } from '../../src/redis/relay/relay-codec.js';

// Values as the relay carries them: JSON values and Maps (attribute sets, latencies), nested.
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)), fc.boolean(), fc.constant(null), tie('array'), tie('object'), tie('map')),
  array: fc.array(tie('any'), { maxLength: 4 }),
  object: fc.dictionary(fc.string().filter((k) => k !== '$m' && k !== '__proto__'), tie('any'), { maxKeys: 4 }),
  map: fc.uniqueArray(fc.tuple(fc.string(), tie('any')), { maxLength: 4, selector: ([k]) => k }).map((entries) => new Map(entries)),
})).any;

describe('the relay codec', () => {
  it('gives back what it was given, Maps at any depth included', () => {
    fc.assert(
      fc.property(value, (payload) => {
        const message = { k: 'event', node: 'n', serverId: 's', event: { kind: 'x', payload } } as unknown as InboxMessage;
        expect(decode(encode(message))).toEqual(message);
      }),
    );
  });

  it('never sets a prototype from the wire', () => {
    const decoded = decode<InboxMessage>('{"k":"bye","node":"n","serverId":"s","__proto__":{"polluted":{"$m":[["a",1]]}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });
});
