import type { AttributeValue } from './generated/gamefactory/v1/attributes.js';

/** An attribute value as plain JavaScript. */
export type PlainValue = string | number | bigint | boolean | Uint8Array;

/**
 * Plain JavaScript values as wire attributes, the same way factories.yaml reads scalars:
 * strings, booleans, integers (as int) and other numbers (as double), bigint, bytes.
 */
export function wireValue(value: PlainValue): AttributeValue {
  if (typeof value === 'string') return { kind: { $case: 'stringValue', value } };
  if (typeof value === 'boolean') return { kind: { $case: 'boolValue', value } };
  if (typeof value === 'bigint') return { kind: { $case: 'intValue', value } };
  if (typeof value === 'number') {
    return Number.isInteger(value)
      ? { kind: { $case: 'intValue', value: BigInt(value) } }
      : { kind: { $case: 'doubleValue', value } };
  }
  // A Buffer where there is one (Node's generated types want it); the bytes as they are in a browser.
  return { kind: { $case: 'bytesValue', value: typeof Buffer === 'undefined' ? (value as Buffer) : Buffer.from(value) } };
}

export function wireAttributes(attributes: Record<string, PlainValue> = {}): Record<string, AttributeValue> {
  // A loop, not Object.entries/map/fromEntries: three lists a call, on every FindGame a client sends.
  const wire: Record<string, AttributeValue> = {};
  for (const key of Object.keys(attributes)) wire[key] = wireValue(attributes[key]!);
  return wire;
}

/**
 * A wire value as plain JavaScript: integers that fit a double become numbers (the way they were
 * most likely written), larger ones stay bigint; an empty value reads as the empty string.
 */
export function plainValue(value: AttributeValue): PlainValue {
  const kind = value.kind;
  if (kind === undefined) return '';
  if (kind.$case === 'intValue') return Number.isSafeInteger(Number(kind.value)) ? Number(kind.value) : kind.value;
  return kind.value;
}

export function plainAttributes(attributes: Record<string, AttributeValue>): Record<string, PlainValue> {
  return Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, plainValue(v)]));
}
