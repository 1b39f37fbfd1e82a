import type { PlainValue } from '@gamefactory/protocol';

/** `key=value` command-line pairs: true/false are bools, integers are ints, the rest strings. */
export function parsePairs(pairs: readonly string[]): Record<string, PlainValue> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`"${pair}": expected key=value`);
      const raw = pair.slice(at + 1);
      const value: PlainValue = raw === 'true' ? true : raw === 'false' ? false : /^-?\d+$/.test(raw) ? Number(raw) : raw;
      return [pair.slice(0, at), value];
    }),
  );
}
