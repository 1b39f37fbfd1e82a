import type { Keyspace } from '../keyspace.js';
import { CommandError, SYNTAX, type Reply } from '../reply.js';

/** What a command runs against: the database at the command's (frozen) time. */
export interface CommandContext {
  readonly db: Keyspace;
  readonly now: number;
}

export interface CommandSpec {
  /** Redis' arity: the words with the command's name, exact when positive, at least -arity when negative. */
  readonly arity: number;
  /** Changes data: journaled for persistence, refused nowhere (this Redis has no replicas). */
  readonly write: boolean;
  run(ctx: CommandContext, args: string[]): Reply;
}

export type CommandTable = Record<string, CommandSpec>;

export const command = (arity: number, write: boolean, run: CommandSpec['run']): CommandSpec => ({ arity, write, run });

/** Options read as Redis reads them: case-insensitive words, each known at most where allowed. */
export function upper(word: string | undefined): string {
  return (word ?? '').toUpperCase();
}

export function syntaxError(): never {
  throw new CommandError(SYNTAX);
}

/** An index range as LRANGE/ZRANGE read it (negative from the end), clamped; undefined when empty. */
export function clampRange(start: number, stop: number, length: number): [number, number] | undefined {
  if (start < 0) start += length;
  if (stop < 0) stop += length;
  if (start < 0) start = 0;
  if (start > stop || start >= length) return undefined;
  if (stop >= length) stop = length - 1;
  return [start, stop];
}
