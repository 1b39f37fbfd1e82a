import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';

// Issue 10, defect 1: a data directory whose name has a dot (mktemp -d, ./gamefactory.d) or a space
// was taken by LMDB for a file name: "Is a directory: Attempting to open main database file".

const parents: string[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) rmSync(p, { recursive: true, force: true });
});

function parent(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-storage-'));
  parents.push(dir);
  return dir;
}

function record(ticketId: string, arrival: number): TicketRecord {
  return {
    request: {
      ticketId,
      template: 'duel',
      party: [{ playerId: `${ticketId}-p`, score: 1200 }],
      partition: new Map([['region', 's:eu']]),
      matchable: new Map(),
      latenciesMs: new Map([['eu', 30]]),
      preferredMaps: [],
      vetoedMaps: [],
    },
    createdAt: 1000 + arrival,
    arrival,
  };
}

describe('the LMDB data directory', () => {
  it.each(['gamefactory.d', 'tmp.AbC123xyz', 'my data', 'my data.d', 'plain'])(
    'opens "%s" as a directory, keeps tickets across a reopen and leaves nothing beside it',
    async (name) => {
      const root = parent();
      const dataDir = join(root, name);

      const first = LmdbStore.open(dataDir);
      expect(await first.recordStart(1)).toBe(1);
      first.tickets.save(record('t1', 1));
      first.tickets.save(record('t2', 2));
      await first.tickets.flushed();
      await first.close();

      const second = LmdbStore.open(dataDir);
      expect(await second.recordStart(2)).toBe(2);
      expect(second.tickets.loadAll().map((r) => r.request.ticketId)).toEqual(['t1', 't2']);
      await second.close();

      // The environment lives inside the directory; no stray "<name>-lock" file beside it.
      expect(readdirSync(root)).toEqual([name]);
      expect(readdirSync(dataDir).sort()).toEqual(['data.mdb', 'lock.mdb']);
    },
  );

  it('an existing directory with a dot in its name is used as it is', async () => {
    const dataDir = mkdtempSync(join(parent(), 'mktemp.'));
    const store = LmdbStore.open(dataDir);
    await store.close();
    expect(existsSync(join(dataDir, 'data.mdb'))).toBe(true);
  });
});

describe('gamefactory start --data', () => {
  it('starts with a data directory named "my data.d" and listens', async () => {
    const dataDir = join(parent(), 'my data.d');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'start', '--data', dataDir, '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GAMEFACTORY_LOG_FORMAT: 'json' } },
    );
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let output = '';
    try {
      const listening = await new Promise<boolean>((resolve) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('gamefactory coordinator listening')) resolve(true);
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        void exited.then(() => resolve(false));
      });
      expect(listening, output).toBe(true);
      expect(existsSync(join(dataDir, 'data.mdb'))).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    }
    expect(readdirSync(join(dataDir, '..'))).toEqual(['my data.d']);
  });
});
