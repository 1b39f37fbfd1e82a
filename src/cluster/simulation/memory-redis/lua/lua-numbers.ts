import { createRequire } from 'node:module';
import { to_luastring } from 'fengari';
import type * as LObject from 'fengari/src/lobject.js';
import type * as LString from 'fengari/src/lstring.js';
import { formatG } from '../reply.js';

/**
 * Redis runs Lua 5.1, whose every number is a double printed "%.14g"; fengari is Lua 5.3 with
 * 32-bit integers, where `tonumber(t[1]) * 1000000` (a fencing token from TIME) wraps around and
 * `tostring(2.0)` is "2.0". Numerals and string conversions are made doubles here, and doubles
 * printed as Lua 5.1 prints them, so the project's scripts compute what they compute on Redis.
 * Integers still arise from `#t`, `string.find` and the like, small and printed alike.
 *
 * This patches fengari's number reading and printing for the whole process (its modules call
 * them through the module object); the memory Redis is fengari's only user in this project.
 */
const require = createRequire(import.meta.url);
const lobject = require('fengari/src/lobject.js') as typeof LObject;
const lstring = require('fengari/src/lstring.js') as typeof LString;

const PATCHED = Symbol.for('gamefactory.memory-redis.lua51-numbers');

export function useLua51Numbers(): void {
  const marked = lobject as unknown as Record<symbol, boolean>;
  if (marked[PATCHED]) return;
  marked[PATCHED] = true;
  const readNumber = lobject.luaO_str2num;
  lobject.luaO_str2num = (s, o) => {
    const size = readNumber(s, o);
    if (size !== 0 && o.ttisinteger()) o.setfltvalue(o.value);
    return size;
  };
  lobject.luaO_tostring = (L, o) => {
    const text = o.ttisinteger() ? String(o.value) : formatG(o.value, 14);
    o.setsvalue(lstring.luaS_bless(L, to_luastring(text)));
  };
}
