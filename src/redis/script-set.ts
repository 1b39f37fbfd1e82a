import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';

/** A client the adapters can run scripts on: one redis-server or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

const SCRIPT_DIRECTORY = fileURLToPath(new URL('./scripts/', import.meta.url));
const INCLUDE = /^--- @include "([^"]+)"\s*$/gm;

export interface ScriptSource {
  /** Command name on the client, from the file name: "queue-drain-1.lua" -> "gfQueueDrain". */
  readonly name: string;
  /** Undefined for a script named `-n.lua`, whose keys the caller counts (a batch: `runScript` passes the count). */
  readonly numberOfKeys: number | undefined;
  readonly lua: string;
}

/**
 * The Lua scripts of src/redis/scripts, one file per atomic transition, named BullMQ's way:
 * `<what-it-does>-<number of KEYS>.lua`, or `-n.lua` for a batch whose keys the caller counts
 * (a tick's writes in one call). `--- @include "includes/x"` pastes a shared piece once, so
 * pieces are included rather than copied between scripts.
 */
export function loadScriptSources(directory: string = SCRIPT_DIRECTORY): ScriptSource[] {
  const sources: ScriptSource[] = [];
  for (const file of readdirSync(directory).sort()) {
    const match = /^(.+)-(\d+|n)\.lua$/.exec(file);
    if (match === null) continue;
    const name = 'gf' + match[1]!.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
    sources.push({ name, numberOfKeys: match[2] === 'n' ? undefined : Number(match[2]), lua: expandIncludes(directory, readFileSync(directory + file, 'utf8'), new Set()) });
  }
  return sources;
}

function expandIncludes(directory: string, lua: string, included: Set<string>): string {
  return lua.replace(INCLUDE, (_, path: string) => {
    if (included.has(path)) return '';
    included.add(path);
    return expandIncludes(directory, readFileSync(`${directory}${path}.lua`, 'utf8'), included);
  });
}

const defined = new WeakSet<object>();

/**
 * Defines every script on the client (ioredis runs each by EVALSHA and falls back to EVAL on
 * NOSCRIPT, so a restarted or failed-over Redis reloads them on first use) and loads them now on
 * the server or on every Cluster master, so the first call pays no script upload.
 */
export async function defineScripts(client: RedisClient): Promise<void> {
  if (defined.has(client)) return;
  defined.add(client);
  const sources = loadScriptSources();
  for (const s of sources) client.defineCommand(s.name, s.numberOfKeys === undefined ? { lua: s.lua } : { numberOfKeys: s.numberOfKeys, lua: s.lua });
  const nodes = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  await Promise.all(nodes.flatMap((node) => sources.map((s) => node.script('LOAD', s.lua))));
}

type ScriptArg = string | number;

/**
 * Runs a defined script; ioredis adds defined commands to the client at run time. Keys and
 * arguments go as one array (ioredis flattens it), never spread into the call: a step of a deep
 * backlog has over a hundred thousand, past what V8 lets a call take ("Maximum call stack size
 * exceeded", thrown inside ioredis' auto-pipeline, which then failed the whole process).
 */
export function runScript<T>(client: RedisClient, name: string, keys: readonly string[], args: readonly ScriptArg[]): Promise<T> {
  const command = (client as unknown as Record<string, (words: ScriptArg[]) => Promise<T>>)[name];
  if (command === undefined) throw new Error(`script ${name} is not defined: call defineScripts first`);
  return command.call(client, [...keys, ...args]);
}

/** Runs a defined `-n` script (a batch): its keys are counted here. */
export function runBatchScript<T>(client: RedisClient, name: string, keys: readonly string[], args: readonly ScriptArg[]): Promise<T> {
  return runScript<T>(client, name, [String(keys.length), ...keys], args);
}
