// The part of fengari (a Lua 5.3 VM in JS, untyped CJS) the memory Redis uses.
declare module 'fengari' {
  export type LuaState = { readonly __luaState: unique symbol };
  export type LuaString = Uint8Array;
  export type JsFunction = (L: LuaState) => number;
  export interface DebugInfo {
    currentline: number;
    source: LuaString | null;
    what: LuaString | null;
  }
  export function to_luastring(s: string): LuaString;
  export function to_jsstring(s: LuaString): string;
  export const lua: {
    LUA_OK: number;
    LUA_TNIL: number;
    LUA_TBOOLEAN: number;
    LUA_TLIGHTUSERDATA: number;
    LUA_TNUMBER: number;
    LUA_TSTRING: number;
    LUA_TTABLE: number;
    LUA_REGISTRYINDEX: number;
    LUA_RIDX_GLOBALS: number;
    lua_absindex(L: LuaState, i: number): number;
    lua_gettop(L: LuaState): number;
    lua_settop(L: LuaState, i: number): void;
    lua_pop(L: LuaState, n: number): void;
    lua_pushvalue(L: LuaState, i: number): void;
    lua_insert(L: LuaState, i: number): void;
    lua_remove(L: LuaState, i: number): void;
    lua_type(L: LuaState, i: number): number;
    lua_toboolean(L: LuaState, i: number): boolean;
    lua_tonumber(L: LuaState, i: number): number;
    lua_tolstring(L: LuaState, i: number): LuaString | null;
    lua_touserdata(L: LuaState, i: number): unknown;
    lua_pushnil(L: LuaState): void;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_pushstring(L: LuaState, s: LuaString): void;
    lua_pushboolean(L: LuaState, b: boolean): void;
    lua_pushlightuserdata(L: LuaState, p: unknown): void;
    lua_pushjsfunction(L: LuaState, f: JsFunction): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_newtable(L: LuaState): void;
    lua_setfield(L: LuaState, i: number, k: LuaString): void;
    lua_getfield(L: LuaState, i: number, k: LuaString): number;
    lua_rawgeti(L: LuaState, i: number, n: number): number;
    lua_rawseti(L: LuaState, i: number, n: number): void;
    lua_rawset(L: LuaState, i: number): void;
    lua_rawget(L: LuaState, i: number): number;
    lua_next(L: LuaState, i: number): number;
    lua_setmetatable(L: LuaState, i: number): void;
    lua_setglobal(L: LuaState, k: LuaString): void;
    lua_getglobal(L: LuaState, k: LuaString): number;
    lua_concat(L: LuaState, n: number): void;
    lua_call(L: LuaState, nargs: number, nresults: number): void;
    lua_isinteger(L: LuaState, i: number): boolean;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_error(L: LuaState): never;
    lua_getstack(L: LuaState, level: number, ar: DebugInfo): number;
    lua_getinfo(L: LuaState, what: LuaString, ar: DebugInfo): number;
    lua_Debug: new () => DebugInfo;
  };
  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_loadbuffer(L: LuaState, s: LuaString, sz: number | null, name: LuaString): number;
    luaL_ref(L: LuaState, t: number): number;
    luaL_requiref(L: LuaState, name: LuaString, open: JsFunction, glb: number): void;
    luaL_typename(L: LuaState, i: number): LuaString;
    luaL_where(L: LuaState, level: number): void;
  };
  export const lualib: {
    luaopen_base: JsFunction;
    luaopen_table: JsFunction;
    luaopen_string: JsFunction;
    luaopen_math: JsFunction;
    luaopen_debug: JsFunction;
  };
}

// fengari's number parsing and formatting, patched to Lua 5.1's (Redis' Lua): see lua-numbers.ts.
declare module 'fengari/src/lobject.js' {
  export interface TValue {
    ttisinteger(): boolean;
    value: number;
    setfltvalue(n: number): void;
    setsvalue(s: unknown): void;
  }
  export let luaO_str2num: (s: Uint8Array, o: TValue) => number;
  export let luaO_tostring: (L: unknown, o: TValue) => void;
}
declare module 'fengari/src/lstring.js' {
  export function luaS_bless(L: unknown, s: Uint8Array): unknown;
}
