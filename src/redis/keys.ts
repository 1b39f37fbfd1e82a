/**
 * Key names. Every key of one lease carries a hash tag (`{<name>}`), so each script on it touches
 * one Redis Cluster slot.
 */
export const ROOT = 'gf';

/** Braces would end the hash tag early; factory names in factories.yaml never need them. */
function tag(name: string): string {
  if (name.includes('{') || name.includes('}')) throw new RangeError(`name must not contain braces, got "${name}"`);
  return `{${name}}`;
}

/** A named lease and its fencing counter, side by side in one slot. */
export const leaseKeys = (name: string) => {
  const base = `${ROOT}:${tag(name)}`;
  return { lease: `${base}:lease`, fence: `${base}:fence` };
};
