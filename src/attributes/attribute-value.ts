/**
 * An attribute is a key and a variant value. The coordinator never knows what an attribute
 * means: it only hashes, sorts and compares (Battle.net talk, "Attributes").
 *
 * Every value has a canonical string form, `ValueKey`, that is equal exactly when the values
 * are equal (type included), so indexes are plain hash maps keyed by strings.
 */
export type AttributeValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'double'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'bytes'; readonly value: Uint8Array };

/** Canonical, type-tagged string form of an AttributeValue: `s:hard`, `i:3`, `b:true`... */
export type ValueKey = string;

/** A game's or a query's attributes: attribute key -> canonical value. */
export type AttributeSet = ReadonlyMap<string, ValueKey>;

export function valueKey(value: AttributeValue): ValueKey {
  switch (value.kind) {
    case 'string':
      return `s:${value.value}`;
    case 'int':
      return `i:${value.value.toString()}`;
    case 'double':
      // -0 and 0 compare equal; give them one key.
      return `d:${Object.is(value.value, -0) ? 0 : value.value}`;
    case 'bool':
      return `b:${value.value}`;
    case 'bytes':
      return `x:${Buffer.from(value.value).toString('hex')}`;
  }
}

/** The inverse of valueKey, for display and for sending values back over the wire. */
export function valueFromKey(key: ValueKey): AttributeValue {
  const tag = key.slice(0, 2);
  const rest = key.slice(2);
  switch (tag) {
    case 's:':
      return { kind: 'string', value: rest };
    case 'i:':
      return { kind: 'int', value: BigInt(rest) };
    case 'd:':
      return { kind: 'double', value: Number(rest) };
    case 'b:':
      return { kind: 'bool', value: rest === 'true' };
    case 'x:':
      return { kind: 'bytes', value: Uint8Array.from(Buffer.from(rest, 'hex')) };
    default:
      throw new Error(`not a value key: ${key}`);
  }
}

/** Human-readable form used in factory names and error messages: `hard`, `3`, `true`. */
export function displayValue(key: ValueKey): string {
  return key.slice(2);
}

/** A value written in factories.yaml (a YAML scalar) as an AttributeValue. */
export function valueFromScalar(scalar: string | number | boolean): AttributeValue {
  if (typeof scalar === 'string') return { kind: 'string', value: scalar };
  if (typeof scalar === 'boolean') return { kind: 'bool', value: scalar };
  return Number.isInteger(scalar) ? { kind: 'int', value: BigInt(scalar) } : { kind: 'double', value: scalar };
}
