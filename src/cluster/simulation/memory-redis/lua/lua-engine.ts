import { createHash } from 'node:crypto';
import { lauxlib, lua, lualib, to_jsstring, to_luastring, type JsFunction, type LuaState } from 'fengari';
import { ErrorReply, formatG, type Reply } from '../reply.js';
import { openCjson } from './cjson.js';
import { useLua51Numbers } from './lua-numbers.js';
import { pushField, pushReply, stringField, toReply } from './lua-values.js';

useLua51Numbers();

/** What a script's redis.call reaches: one command, run inside the script's atomic step. */
export type ScriptCall = (args: string[]) => Reply;

export const sha1 = (body: string) => createHash('sha1').update(body).digest('hex');

const ERR = to_luastring('err');
const SOURCE = to_luastring('source');
const LINE = to_luastring('line');
const KEYS = to_luastring('KEYS');
const ARGV = to_luastring('ARGV');

function raise(L: LuaState, message: string): never {
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, to_luastring(message));
  lua.lua_concat(L, 2);
  return lua.lua_error(L);
}

/**
 * One Lua VM as Redis 7 keeps one: the scripts' functions by SHA1, `redis` (call, pcall,
 * error_reply, status_reply, replicate_commands, sha1hex, log, set_repl), `cjson`, Lua 5.1's
 * `unpack`, and globals read-only (a script can neither create one nor read one that is not there).
 */
export class LuaEngine {
  private readonly L: LuaState;
  private readonly functions = new Map<string, number>();
  /** The command runner of the script running now. */
  private calling: ScriptCall | undefined;

  constructor() {
    const L = lauxlib.luaL_newstate();
    this.L = L;
    const open = (name: string, fn: JsFunction) => {
      lauxlib.luaL_requiref(L, to_luastring(name), fn, 1);
      lua.lua_pop(L, 1);
    };
    open('_G', lualib.luaopen_base);
    open('table', lualib.luaopen_table);
    open('string', lualib.luaopen_string);
    open('math', lualib.luaopen_math);
    open('debug', lualib.luaopen_debug);
    for (const name of ['loadfile', 'dofile', 'print']) {
      lua.lua_pushnil(L);
      lua.lua_setglobal(L, to_luastring(name));
    }
    lua.lua_getglobal(L, to_luastring('table'));
    lua.lua_getfield(L, -1, to_luastring('unpack'));
    lua.lua_setglobal(L, to_luastring('unpack'));
    lua.lua_pop(L, 1);
    this.printNumbersAsLua51();
    openCjson(L);
    this.openRedis();
    this.protectGlobals();
  }

  /** `tostring` of a number as Lua 5.1's (fengari's own prints through a path lua-numbers.ts cannot reach). */
  private printNumbersAsLua51(): void {
    const L = this.L;
    lua.lua_getglobal(L, to_luastring('tostring'));
    const original = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    lua.lua_pushjsfunction(L, (state) => {
      if (lua.lua_type(state, 1) === lua.LUA_TNUMBER) {
        const n = lua.lua_tonumber(state, 1);
        lua.lua_pushstring(state, to_luastring(lua.lua_isinteger(state, 1) ? String(n) : formatG(n, 14)));
        return 1;
      }
      lua.lua_settop(state, 1);
      lua.lua_rawgeti(state, lua.LUA_REGISTRYINDEX, original);
      lua.lua_insert(state, 1);
      lua.lua_call(state, 1, 1);
      return 1;
    });
    lua.lua_setglobal(L, to_luastring('tostring'));
  }

  private openRedis(): void {
    const L = this.L;
    lua.lua_createtable(L, 0, 16);
    const set = (name: string, fn: JsFunction) => {
      lua.lua_pushjsfunction(L, fn);
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    set('call', (state) => this.redisCall(state, true));
    set('pcall', (state) => this.redisCall(state, false));
    set('error_reply', (state) => this.replyTable(state, 'error_reply'));
    set('status_reply', (state) => this.replyTable(state, 'status_reply'));
    set('replicate_commands', (state) => {
      lua.lua_pushboolean(state, true);
      return 1;
    });
    set('set_repl', () => 0);
    set('log', () => 0);
    set('sha1hex', (state) => {
      const body = lua.lua_type(state, 1) === lua.LUA_TSTRING ? to_jsstring(lua.lua_tolstring(state, 1)!) : raise(state, 'wrong number of arguments');
      lua.lua_pushstring(state, to_luastring(sha1(body)));
      return 1;
    });
    set('setresp', (state) => raise(state, 'RESP3 in scripts is not implemented by the memory Redis'));
    const constants: [string, number][] = [
      ['LOG_DEBUG', 0],
      ['LOG_VERBOSE', 1],
      ['LOG_NOTICE', 2],
      ['LOG_WARNING', 3],
      ['REPL_NONE', 0],
      ['REPL_AOF', 1],
      ['REPL_SLAVE', 2],
      ['REPL_REPLICA', 2],
      ['REPL_ALL', 3],
    ];
    for (const [name, value] of constants) {
      lua.lua_pushnumber(L, value);
      lua.lua_setfield(L, -2, to_luastring(name));
    }
    lua.lua_setglobal(L, to_luastring('redis'));
  }

  private protectGlobals(): void {
    const L = this.L;
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    lua.lua_createtable(L, 0, 2);
    lua.lua_pushjsfunction(L, (state) => raise(state, 'Attempt to modify a readonly table'));
    lua.lua_setfield(L, -2, to_luastring('__newindex'));
    lua.lua_pushjsfunction(L, (state) => {
      const name = lua.lua_type(state, 2) === lua.LUA_TSTRING ? to_jsstring(lua.lua_tolstring(state, 2)!) : '?';
      return raise(state, `Script attempted to access nonexistent global variable '${name}'`);
    });
    lua.lua_setfield(L, -2, to_luastring('__index'));
    lua.lua_setmetatable(L, -2);
    lua.lua_pop(L, 1);
  }

  /** redis.error_reply / redis.status_reply: {err=...} (an "ERR " code added when none is given) or {ok=...}. */
  private replyTable(L: LuaState, name: string): number {
    if (lua.lua_gettop(L) !== 1 || lua.lua_type(L, 1) !== lua.LUA_TSTRING) raise(L, `wrong number or type of arguments`);
    const text = to_jsstring(lua.lua_tolstring(L, 1)!);
    if (name === 'status_reply') pushField(L, to_luastring('ok'), text);
    else pushField(L, ERR, errorText(text.startsWith('-') ? text : '-' + text));
    return 1;
  }

  private redisCall(L: LuaState, raising: boolean): number {
    const fail = (message: string): number => {
      pushField(L, ERR, message);
      return raising ? lua.lua_error(L) : 1;
    };
    const n = lua.lua_gettop(L);
    if (n === 0) return fail('ERR Please specify at least one argument for this redis lib call');
    const args: string[] = [];
    for (let i = 1; i <= n; i++) {
      const type = lua.lua_type(L, i);
      // A number goes as C's "%.17g" of the double (Redis 7.0's conversion).
      if (type === lua.LUA_TNUMBER) args.push(formatG(lua.lua_tonumber(L, i), 17));
      else if (type === lua.LUA_TSTRING) args.push(to_jsstring(lua.lua_tolstring(L, i)!));
      else return fail('ERR Lua redis lib command arguments must be strings or integers');
    }
    const reply = this.calling!(args);
    if (reply instanceof ErrorReply) return fail(errorText('-' + reply.message));
    pushReply(L, reply);
    return 1;
  }

  /** Loads a script's body (SCRIPT LOAD, EVAL); an ErrorReply when it does not compile. */
  load(body: string): string | ErrorReply {
    const sha = sha1(body);
    if (this.functions.has(sha)) return sha;
    const L = this.L;
    if (lauxlib.luaL_loadbuffer(L, to_luastring(body), null, to_luastring('@user_script')) !== lua.LUA_OK) {
      const message = to_jsstring(lua.lua_tolstring(L, -1)!);
      lua.lua_pop(L, 1);
      return new ErrorReply(`ERR Error compiling script (new function): ${message}`);
    }
    this.functions.set(sha, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
    return sha;
  }

  has(sha: string): boolean {
    return this.functions.has(sha);
  }

  /** Runs a loaded script with its KEYS and ARGV; every redis.call goes to `call`. */
  run(sha: string, keys: readonly string[], argv: readonly string[], call: ScriptCall): Reply {
    const L = this.L;
    const ref = this.functions.get(sha);
    if (ref === undefined) return new ErrorReply('NOSCRIPT No matching script. Please use EVAL.');
    lua.lua_settop(L, 0);
    this.setArray(KEYS, keys);
    this.setArray(ARGV, argv);
    lua.lua_pushjsfunction(L, errorHandler);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
    this.calling = call;
    try {
      if (lua.lua_pcall(L, 0, 1, 1) === lua.LUA_OK) return toReply(L, -1);
      return scriptError(L, sha);
    } finally {
      this.calling = undefined;
      lua.lua_settop(L, 0);
    }
  }

  private setArray(name: Uint8Array, items: readonly string[]): void {
    const L = this.L;
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
    lua.lua_pushstring(L, name);
    lua.lua_createtable(L, items.length, 0);
    items.forEach((item, i) => {
      lua.lua_pushstring(L, to_luastring(item));
      lua.lua_rawseti(L, -2, i + 1);
    });
    lua.lua_rawset(L, -3);
    lua.lua_pop(L, 1);
  }
}

/**
 * An error as Redis 7.0 keeps it in a script (luaPushErrorBuff): "-CODE message" is split at its
 * first space, a message without a code gets "ERR".
 */
function errorText(text: string): string {
  const body = text.slice(1).replace(/[\r\n]+$/, '');
  const space = body.indexOf(' ');
  return space < 0 ? `ERR ${body}` : `${body.slice(0, space)} ${body.slice(space + 1)}`;
}

/**
 * Redis' __redis__err__handler: the error as a table {err, source, line}, where a string error
 * becomes "ERR <it>" and the place is the frame that raised it, or its caller when that was a
 * function of the host (redis.call, error).
 */
const errorHandler: JsFunction = (L) => {
  if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) {
    const text = lua.lua_type(L, 1) === lua.LUA_TSTRING || lua.lua_type(L, 1) === lua.LUA_TNUMBER ? to_jsstring(lua.lua_tolstring(L, 1)!) : 'unknown error';
    lua.lua_settop(L, 0);
    pushField(L, ERR, `ERR ${text}`);
  }
  const ar = new lua.lua_Debug();
  for (let level = 1; lua.lua_getstack(L, level, ar) !== 0; level++) {
    lua.lua_getinfo(L, to_luastring('Sl'), ar);
    if (ar.what !== null && ['C', 'J'].includes(to_jsstring(ar.what))) continue;
    if (ar.source !== null) {
      lua.lua_pushstring(L, ar.source);
      lua.lua_setfield(L, 1, SOURCE);
      lua.lua_pushnumber(L, ar.currentline);
      lua.lua_setfield(L, 1, LINE);
    }
    break;
  }
  lua.lua_settop(L, 1);
  return 1;
};

/** The reply of a script that raised: "<err> script: <sha>, on <source>:<line>.". */
function scriptError(L: LuaState, sha: string): ErrorReply {
  if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) return new ErrorReply(`ERR ${lua.lua_type(L, -1) === lua.LUA_TSTRING ? to_jsstring(lua.lua_tolstring(L, -1)!) : 'unknown error'}`);
  const err = stringField(L, -1, ERR) ?? 'ERR unknown error';
  const source = stringField(L, -1, SOURCE);
  lua.lua_getfield(L, -1, LINE);
  const line = lua.lua_type(L, -1) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, -1) : undefined;
  lua.lua_pop(L, 1);
  return new ErrorReply(source !== undefined && line !== undefined ? `${err} script: ${sha}, on ${source}:${line}.` : err);
}
