import { describe, expect, it } from 'vitest';
import type { AttributeSet } from '../../src/attributes/attribute-value.js';
import type { AttributeValue as WireValue } from '../../src/generated/gamefactory/v1/attributes.js';
import { decodeAttributes } from '../../src/transport/grpc/codec.js';
import { KnownAttributeSets } from '../../src/transport/grpc/known-attribute-sets.js';

const str = (value: string): WireValue => ({ kind: { $case: 'stringValue', value } });
const bool = (value: boolean): WireValue => ({ kind: { $case: 'boolValue', value } });
const int = (value: bigint): WireValue => ({ kind: { $case: 'intValue', value } });
const dbl = (value: number): WireValue => ({ kind: { $case: 'doubleValue', value } });
const bytes = (value: number[]): WireValue => ({ kind: { $case: 'bytesValue', value: Buffer.from(value) } });
const setOf = (label: string): AttributeSet => new Map([['label', `s:${label}`]]);

describe('KnownAttributeSets', () => {
  it('finds the set remembered for the same pairs in the same order, and nothing for others', () => {
    const known = new KnownAttributeSets(new Map());
    const hard = setOf('hard');
    known.remember({ difficulty: str('hard'), hardcore: bool(false) }, hard);
    expect(known.find({ difficulty: str('hard'), hardcore: bool(false) })).toBe(hard);
    expect(known.find({ hardcore: bool(false), difficulty: str('hard') })).toBeUndefined();
    expect(known.find({ difficulty: str('hard') })).toBeUndefined(); // a prefix is not a set of its own
    expect(known.find({ difficulty: str('hard'), hardcore: bool(true) })).toBeUndefined();
  });

  it('the empty message is the empty set', () => {
    const empty = new Map();
    expect(new KnownAttributeSets(empty).find({})).toBe(empty);
  });

  it('values of different kinds that read alike are different pairs', () => {
    const known = new KnownAttributeSets(new Map());
    const asString = setOf('string');
    const asInt = setOf('int');
    known.remember({ a: str('true'), b: int(5n) }, asString);
    expect(known.find({ a: bool(true), b: int(5n) })).toBeUndefined();
    expect(known.find({ a: str('true'), b: dbl(5) })).toBeUndefined();
    known.remember({ a: str('true'), b: dbl(5) }, asInt);
    expect(known.find({ a: str('true'), b: int(5n) })).toBe(asString);
    expect(known.find({ a: str('true'), b: dbl(5) })).toBe(asInt);
  });

  it('never remembers bytes values (or a missing value): those take the full decode', () => {
    const known = new KnownAttributeSets(new Map());
    known.remember({ a: bytes([1, 2]) }, setOf('bytes'));
    expect(known.find({ a: bytes([1, 2]) })).toBeUndefined();
    known.remember({ a: {} as WireValue }, setOf('none'));
    expect(known.find({ a: {} as WireValue })).toBeUndefined();
  });

  it('starts over when full, then fills again', () => {
    const known = new KnownAttributeSets(new Map(), 4);
    const first = setOf('first');
    known.remember({ a: str('1'), b: str('1') }, first);
    known.remember({ a: str('2'), b: str('2') }, setOf('second')); // nodes 3 and 4
    expect(known.find({ a: str('1'), b: str('1') })).toBe(first);
    known.remember({ a: str('3') }, setOf('third')); // node 5: over the bound
    expect(known.find({ a: str('1'), b: str('1') })).toBeUndefined();
    known.remember({ a: str('1'), b: str('1') }, first);
    expect(known.find({ a: str('1'), b: str('1') })).toBe(first);
  });
});

describe('decodeAttributes with the known sets', () => {
  it('answers a repeated set with the same decoded set, values and all', () => {
    const wire = () => ({ difficulty: str('hard'), hardcore: bool(false), level: int(3n), ratio: dbl(-0) });
    const first = decodeAttributes('partition_attributes', wire());
    expect([...first]).toEqual([
      ['difficulty', 's:hard'],
      ['hardcore', 'b:false'],
      ['level', 'i:3'],
      ['ratio', 'd:0'],
    ]);
    expect(decodeAttributes('partition_attributes', wire())).toBe(first);
    expect(decodeAttributes('partition_attributes', { ...wire(), ratio: dbl(0) })).toBe(first);
  });

  it('refuses an invalid set every time (a refused set is never remembered)', () => {
    const bad = () => ({ ok: str('x'), '': str('y') });
    for (let i = 0; i < 2; i++) expect(() => decodeAttributes('matchable_attributes', bad())).toThrow(/matchable_attributes\[\]: key must not be empty/);
    const nan = () => ({ ratio: dbl(Number.NaN) });
    for (let i = 0; i < 2; i++) expect(() => decodeAttributes('matchable_attributes', nan())).toThrow(/finite/);
  });
});
