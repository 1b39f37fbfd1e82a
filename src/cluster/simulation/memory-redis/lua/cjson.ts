import { lauxlib, lua, to_jsstring, to_luastring, type LuaState } from 'fengari';
import { formatG } from '../reply.js';

/** cjson.null: a light userdata, as lua-cjson's NULL pointer. */
const NULL = { cjsonNull: true };

function raise(L: LuaState, message: string): never {
  lua.lua_pushstring(L, to_luastring(message));
  return lua.lua_error(L);
}

/** lua-cjson's string escaping: the JSON escapes plus "/" as "\/". */
function encodeString(s: string): string {
  return JSON.stringify(s).replace(/\//g, '\\/').replace(/[\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function encodeNumber(L: LuaState, n: number): string {
  if (!Number.isFinite(n)) raise(L, 'Cannot serialise number: must not be NaN or Inf');
  return formatG(n, 14);
}

/**
 * lua-cjson's table rule: an array when every key is a positive integer and it is not too sparse
 * (a hole past 10 where over half the slots are empty is refused), else an object with string or
 * number keys; an empty table is an object. Objects list keys in the table's order of iteration,
 * which is not Lua 5.1's: JSON objects from here equal Redis' once parsed, not byte for byte.
 */
function encodeValue(L: LuaState, index: number, depth: number): string {
  const at = lua.lua_absindex(L, index);
  switch (lua.lua_type(L, at)) {
    case lua.LUA_TNIL:
      return 'null';
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, at) ? 'true' : 'false';
    case lua.LUA_TNUMBER:
      return encodeNumber(L, lua.lua_tonumber(L, at));
    case lua.LUA_TSTRING:
      return encodeString(to_jsstring(lua.lua_tolstring(L, at)!));
    case lua.LUA_TLIGHTUSERDATA:
      if (lua.lua_touserdata(L, at) === NULL) return 'null';
      break;
    case lua.LUA_TTABLE:
      if (depth > 1000) raise(L, 'Cannot serialise, excessive nesting (1001)');
      return encodeTable(L, at, depth + 1);
  }
  return raise(L, `Cannot serialise ${to_jsstring(lauxlib.luaL_typename(L, at))}: type not supported`);
}

function encodeTable(L: LuaState, at: number, depth: number): string {
  let max = 0;
  let items = 0;
  let isArray = true;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, at) !== 0) {
    lua.lua_pop(L, 1);
    const n = lua.lua_type(L, -1) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, -1) : NaN;
    if (Number.isInteger(n) && n >= 1) {
      max = Math.max(max, n);
      items++;
    } else isArray = false;
  }
  if (isArray && max > items * 2 && max > 10) raise(L, 'Cannot serialise table: excessively sparse array');
  if (isArray && max > 0) {
    const out: string[] = [];
    for (let i = 1; i <= max; i++) {
      lua.lua_rawgeti(L, at, i);
      out.push(encodeValue(L, -1, depth));
      lua.lua_pop(L, 1);
    }
    return `[${out.join(',')}]`;
  }
  const out: string[] = [];
  lua.lua_pushnil(L);
  while (lua.lua_next(L, at) !== 0) {
    const keyType = lua.lua_type(L, -2);
    let key: string;
    if (keyType === lua.LUA_TSTRING) key = to_jsstring(lua.lua_tolstring(L, -2)!);
    else if (keyType === lua.LUA_TNUMBER) key = formatG(lua.lua_tonumber(L, -2), 14);
    else raise(L, 'Cannot serialise table: table key must be a number or string');
    out.push(`${encodeString(key)}:${encodeValue(L, -1, depth)}`);
    lua.lua_pop(L, 1);
  }
  return `{${out.join(',')}}`;
}

function pushJson(L: LuaState, value: unknown): void {
  if (value === null) lua.lua_pushlightuserdata(L, NULL);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (typeof value === 'number') lua.lua_pushnumber(L, value);
  else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
  else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((item, i) => {
      pushJson(L, item);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else {
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      lua.lua_pushstring(L, to_luastring(key));
      pushJson(L, item);
      lua.lua_rawset(L, -3);
    }
  }
}

/** Opens `cjson` (encode, decode, null) as a global of the Lua state. */
export function openCjson(L: LuaState): void {
  lua.lua_createtable(L, 0, 3);
  lua.lua_pushjsfunction(L, (state) => {
    if (lua.lua_gettop(state) !== 1) raise(state, 'bad argument #1 to \'encode\' (expected 1 argument)');
    lua.lua_pushstring(state, to_luastring(encodeValue(state, 1, 0)));
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('encode'));
  lua.lua_pushjsfunction(L, (state) => {
    const text = lua.lua_type(state, 1) === lua.LUA_TSTRING ? to_jsstring(lua.lua_tolstring(state, 1)!) : undefined;
    if (text === undefined) raise(state, "bad argument #1 to 'decode' (string expected)");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      raise(state, `Expected value but found invalid token: ${(error as Error).message}`);
    }
    pushJson(state, parsed);
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('decode'));
  lua.lua_pushlightuserdata(L, NULL);
  lua.lua_setfield(L, -2, to_luastring('null'));
  lua.lua_setglobal(L, to_luastring('cjson'));
}
