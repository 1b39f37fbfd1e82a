import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDataDirectory } from '../../src/storage/data-directory/check-data-directory.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { runCli } from '../operations/cli-process.js';

/**
 * A damaged data directory (truncated, bit-flipped, random data.mdb) is refused with one line
 * naming the directory and what to do, exit code 2, instead of LMDB's SIGSEGV/SIGBUS or a start
 * that silently lost most of its tickets. Each case is a corrupted copy of a real directory, and
 * the real CLI is started on it.
 */
const root = mkdtempSync(join(tmpdir(), 'gamefactory-corrupt-'));
const intact = join(root, 'intact');
const FACTORIES = join(root, 'factories.yaml');

/** A deterministic byte flipper (LCG): the same damage every run. */
function flipBytes(file: string, count: number, seed: number): void {
  const bytes = readFileSync(file);
  let s = seed;
  for (let i = 0; i < count; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    bytes[s % bytes.length]! ^= 0xff;
  }
  writeFileSync(file, bytes);
}

const DAMAGE: Record<string, (file: string) => void> = {
  'truncated to 0 bytes': (f) => truncateSync(f, 0),
  'truncated to 5,000 bytes': (f) => truncateSync(f, 5000),
  'truncated to half': (f) => truncateSync(f, Math.floor(statSync(f).size / 2)),
  'bit-flipped (200 bytes)': (f) => flipBytes(f, 200, 3),
  'random bytes': (f) => writeFileSync(f, randomBytes(statSync(f).size)),
};

beforeAll(async () => {
  writeFileSync(FACTORIES, 'factories:\n  - name: coop\n    partitioning: { region: [eu] }\n    cooperative: { maxPlayers: 4 }\n');
  const store = LmdbStore.open(intact);
  await store.recordStart(1);
  for (let i = 0; i < 2000; i++) {
    store.tickets.save({
      request: { ticketId: `t${i}`, template: 'coop', party: [{ playerId: `p${i}`, score: undefined }], partition: new Map([['region', 's:eu']]), matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] },
      createdAt: i,
      arrival: i,
    });
  }
  await store.tickets.flushed();
  await store.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const copyWith = (name: string, damage: (file: string) => void): string => {
  const dir = join(root, name.replace(/\W+/g, '-'));
  cpSync(intact, dir, { recursive: true });
  damage(join(dir, 'data.mdb'));
  return dir;
};

describe('a damaged data directory', () => {
  it('the intact directory passes the check, and a new one needs none', async () => {
    await checkDataDirectory(intact);
    await checkDataDirectory(join(root, 'not-created-yet'));
  });

  it.each(Object.keys(DAMAGE))('%s: refused by the check with a message naming the directory and what to do', async (name) => {
    const dir = copyWith(`check ${name}`, DAMAGE[name]!);
    await expect(checkDataDirectory(dir)).rejects.toMatchObject({
      name: 'DataDirectoryError',
      message: expect.stringMatching(new RegExp(`^data directory ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged: .+\\. Move the directory aside .* or restore it from a backup, then start again\\.$`)),
    });
  });

  it.each(['truncated to 5,000 bytes', 'random bytes'])('%s: `gamefactory start` exits with code 2 and one error line, no signal', async (name) => {
    const dir = copyWith(`cli ${name}`, DAMAGE[name]!);
    const exit = await runCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--config', FACTORIES, '--data', dir]);
    expect(exit.signal).toBeNull();
    expect(exit.code).toBe(2);
    const errors = exit.output.split('\n').filter((l) => l.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`data directory ${dir} is damaged`);
    expect(exit.output).not.toContain('listening');
  });

  // Before: a --data that was a file, or under one, died in mkdir with a stack trace and exit code
  // 1; a lock.mdb without a data.mdb (a directory here) was not checked and crashed the process
  // (SIGSEGV) once LMDB opened it.
  const unusable: Record<string, () => { dir: string; says: string }> = {
    'a file': () => {
      const dir = join(root, 'a-file');
      writeFileSync(dir, 'not a directory');
      return { dir, says: `data directory ${dir} cannot be used: it is a file, not a directory` };
    },
    'a path under a file': () => {
      writeFileSync(join(root, 'a-parent-file'), 'not a directory');
      const dir = join(root, 'a-parent-file', 'data');
      return { dir, says: `data directory ${dir} cannot be created (ENOTDIR)` };
    },
    'a directory with a lock.mdb that is no lock file': () => {
      const dir = join(root, 'lock-only');
      mkdirSync(join(dir, 'lock.mdb'), { recursive: true });
      return { dir, says: `data directory ${dir} is damaged` };
    },
  };
  it.each(Object.keys(unusable))('--data naming %s: `gamefactory start` exits with code 2 and one error line, no stack trace', async (name) => {
    const { dir, says } = unusable[name]!();
    const exit = await runCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--config', FACTORIES, '--data', dir]);
    expect(exit.signal).toBeNull();
    expect(exit.code, exit.output).toBe(2);
    const errors = exit.output.split('\n').filter((l) => l.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(says);
    expect(exit.output).not.toMatch(/\n\s+at /);
    expect(exit.output).not.toContain('listening');
  });
});
