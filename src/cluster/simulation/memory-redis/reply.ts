/**
 * What a command answers, before a protocol shapes it: the Lua bridge reads it as RESP2 (what a
 * script sees), the client face as ioredis shows RESP3 with its default "legacy" mapping.
 */
export type Reply = string | number | null | Reply[] | StatusReply | ErrorReply | MapReply | DoubleReply | PairsReply;

/** `+OK`: a status line. */
export class StatusReply {
  constructor(readonly status: string) {}
}

/** `-CODE message`: an error reply (a value, so an array can carry one, as EXEC's does). */
export class ErrorReply {
  constructor(readonly message: string) {}
}

/** A RESP3 map (HGETALL, XREAD): a flat array in RESP2 and in ioredis' legacy mapping. */
export class MapReply {
  constructor(readonly entries: [Reply, Reply][]) {}
}

/** A RESP3 double (ZSCORE): a bulk string in RESP2, a string in ioredis' legacy mapping. */
export class DoubleReply {
  constructor(readonly value: number) {}
}

/** Pairs RESP3 nests and RESP2 flattens (ZRANGE ... WITHSCORES). */
export class PairsReply {
  constructor(readonly pairs: [Reply, Reply][]) {}
}

export const OK = new StatusReply('OK');

/** A command refused: thrown by handlers, answered as an ErrorReply. */
export class CommandError extends Error {}

export const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
export const NOT_INTEGER = 'ERR value is not an integer or out of range';
export const NOT_FLOAT = 'ERR value is not a valid float';
export const SYNTAX = 'ERR syntax error';

/** C's `%.<precision>g`, as Redis formats doubles (%.17g) and Lua 5.1 numbers (%.14g). */
export function formatG(n: number, precision: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exponentText] = n.toExponential(precision - 1).split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= precision) {
    const digits = trimZeros(mantissa);
    return `${digits}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return trimZeros(n.toFixed(precision - 1 - exponent));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** Redis' string2ll: a decimal integer, no sign but '-', no leading zeros, no spaces, in 64 bits. */
export function parseInteger(s: string, error = NOT_INTEGER): number {
  if (!/^-?(0|[1-9][0-9]{0,18})$/.test(s) || s === '-0') throw new CommandError(error);
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) throw new CommandError(error);
  return Number(big);
}

/** Redis' strtold for scores: a number or ±inf, never NaN, no spaces. */
export function parseFloatStrict(s: string, error = NOT_FLOAT): number {
  const lower = s.toLowerCase();
  if (/^[+]?inf(inity)?$/.test(lower)) return Infinity;
  if (/^-inf(inity)?$/.test(lower)) return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(lower)) throw new CommandError(error);
  return Number(s);
}

/** A Lua number (a double) as an integer reply: truncated; what does not fit is LLONG_MIN, as the C cast gives on x86. */
export function luaNumberToInteger(n: number): number {
  if (!Number.isFinite(n) || Math.abs(n) >= 2 ** 63) return -9223372036854775808;
  return Math.trunc(n) || 0;
}
