import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { CHECK_SCRIPT } from './check-script.js';

/** A data directory that cannot be used as it is; the message is the one line an operator needs. */
export class DataDirectoryError extends Error {
  override readonly name = 'DataDirectoryError';
}

const WHAT_TO_DO =
  'Move the directory aside (the coordinator then starts empty: game servers re-announce their games, waiting players retry) or restore it from a backup, then start again.';

/**
 * Reads the whole LMDB environment in a child process before the coordinator maps it. LMDB
 * trusts its file: a truncated, bit-flipped or random data.mdb makes it read past the mapping
 * (SIGBUS), follow a wild pointer (SIGSEGV) or silently return part of the data, and neither a
 * signal nor a short read can be caught in-process. A missing data.mdb (a new directory) needs no check.
 */
export async function checkDataDirectory(dataDir: string): Promise<void> {
  const dir = resolve(dataDir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new DataDirectoryError(`data directory ${dir} cannot be used: it is a file, not a directory. Name a directory (it is created if missing).`);
  }
  // LMDB rebuilds a lock file whatever it holds, but maps one that is not a file at all and crashes (SIGSEGV).
  const lock = join(dir, 'lock.mdb');
  if (existsSync(lock) && !statSync(lock).isFile()) throw new DataDirectoryError(`data directory ${dir} is damaged: lock.mdb is not a file. ${WHAT_TO_DO}`);
  if (!existsSync(join(dir, 'data.mdb'))) return;
  const lmdbPath = createRequire(import.meta.url).resolve('lmdb');
  const child = spawn(process.execPath, ['-e', CHECK_SCRIPT, lmdbPath, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.resume();
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('close', (c, s) => done([c, s])));
  let answer: { ok?: true; problem?: string } = {};
  try {
    answer = JSON.parse(out.trim().split('\n').pop() ?? '{}') as typeof answer;
  } catch {
    // no answer: the child died before it could say (below)
  }
  if (answer.ok === true && code === 0) return;
  const why = answer.problem ?? (signal ? `reading it crashed LMDB (${signal})` : `the check failed (exit code ${code})`);
  throw new DataDirectoryError(`data directory ${dir} is damaged: ${why}. ${WHAT_TO_DO}`);
}
