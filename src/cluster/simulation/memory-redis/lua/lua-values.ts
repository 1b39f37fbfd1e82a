import { lua, to_jsstring, to_luastring, type LuaState } from 'fengari';
import { DoubleReply, ErrorReply, formatG, luaNumberToInteger, MapReply, PairsReply, StatusReply, type Reply } from '../reply.js';

const ERR = to_luastring('err');
const OK_FIELD = to_luastring('ok');

/** Pushes a reply as a script sees it (RESP2): nil is false, a status {ok=...}, an error {err=...}. */
export function pushReply(L: LuaState, reply: Reply): void {
  if (typeof reply === 'string') lua.lua_pushstring(L, to_luastring(reply));
  else if (typeof reply === 'number') lua.lua_pushnumber(L, reply);
  else if (reply === null) lua.lua_pushboolean(L, false);
  else if (Array.isArray(reply)) pushArray(L, reply);
  else if (reply instanceof StatusReply) pushField(L, OK_FIELD, reply.status);
  else if (reply instanceof ErrorReply) pushField(L, ERR, reply.message);
  else if (reply instanceof DoubleReply) lua.lua_pushstring(L, to_luastring(formatG(reply.value, 17)));
  else if (reply instanceof MapReply) pushArray(L, reply.entries.flat());
  else if (reply instanceof PairsReply) pushArray(L, reply.pairs.flat());
}

function pushArray(L: LuaState, items: readonly Reply[]): void {
  lua.lua_createtable(L, items.length, 0);
  items.forEach((item, i) => {
    pushReply(L, item);
    lua.lua_rawseti(L, -2, i + 1);
  });
}

export function pushField(L: LuaState, field: Uint8Array, value: string): void {
  lua.lua_createtable(L, 0, 1);
  lua.lua_pushstring(L, to_luastring(value));
  lua.lua_setfield(L, -2, field);
}

/** Reads a Lua string field of the table at `index`, or undefined. */
export function stringField(L: LuaState, index: number, field: Uint8Array): string | undefined {
  lua.lua_getfield(L, index, field);
  const value = lua.lua_type(L, -1) === lua.LUA_TSTRING ? to_jsstring(lua.lua_tolstring(L, -1)!) : undefined;
  lua.lua_pop(L, 1);
  return value;
}

/**
 * The value at `index` as Redis replies it: a number as an integer (truncated), false and nil
 * as nil, true as 1, a table with `err` or `ok` as an error or status, any other table as an
 * array up to its first nil.
 */
export function toReply(L: LuaState, index: number): Reply {
  const at = lua.lua_absindex(L, index);
  switch (lua.lua_type(L, at)) {
    case lua.LUA_TSTRING:
      return to_jsstring(lua.lua_tolstring(L, at)!);
    case lua.LUA_TNUMBER:
      return luaNumberToInteger(lua.lua_tonumber(L, at));
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, at) ? 1 : null;
    case lua.LUA_TTABLE: {
      const err = stringField(L, at, ERR);
      if (err !== undefined) return new ErrorReply(err);
      const ok = stringField(L, at, OK_FIELD);
      if (ok !== undefined) return new StatusReply(ok);
      const items: Reply[] = [];
      for (let i = 1; ; i++) {
        if (lua.lua_rawgeti(L, at, i) === lua.LUA_TNIL) {
          lua.lua_pop(L, 1);
          break;
        }
        items.push(toReply(L, -1));
        lua.lua_pop(L, 1);
      }
      return items;
    }
    default:
      return null;
  }
}
