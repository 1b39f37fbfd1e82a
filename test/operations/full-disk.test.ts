import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { findGameRequest } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { startCli } from './cli-process.js';
import { until } from '../support/until.js';

/**
 * A full disk on a real process: the data directory on a 1 MiB tmpfs that also holds a filler
 * file. Once LMDB's commits fail, new tickets are refused with UNAVAILABLE naming the store, the
 * waiting ones keep their place, the process lives on (no unhandled rejection), and when the
 * filler is removed new tickets are taken again.
 */
const YAML = `
limits: { rate: { findGames: { perSecond: 1000000, burst: 1000000 } }, maxTicketsInFlightPerStream: 1000000 }
placement: { policy: fill, createTimeoutMs: 600000, maxQueuedPerFactory: 1000000, ticketTtlSeconds: 3000 }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;
const STORE_REFUSAL = /^the ticket store \(LMDB in .*\) cannot write \(.+\): new tickets are refused until it can; waiting tickets keep their place$/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes to `path` until the file system has no block left. */
function fillTheRest(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe('a full disk under a running coordinator', () => {
  const work = mkdtempSync(join(tmpdir(), 'gamefactory-full-disk-'));
  const disk = join(work, 'disk');
  let cli: Awaited<ReturnType<typeof startCli>>;
  let server: GameServerConnection;
  let client: MatchmakerClient;
  let exited: { code: number | null; signal: string | null } | undefined;

  beforeAll(async () => {
    execFileSync('mkdir', ['-p', disk]);
    // Root (as here and in CI containers) can mount a small tmpfs; anyone else gets this error.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
    writeFileSync(join(disk, 'filler'), Buffer.alloc(256 * 1024, 1));
    writeFileSync(join(work, 'factories.yaml'), YAML);
    cli = await startCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', ':0', '--config', join(work, 'factories.yaml'), '--data', join(disk, 'data')]);
    (cli.child as ChildProcess).on('exit', (code, signal) => (exited = { code, signal }));
    // One slot that never confirms: every ticket waits for a slot, stored in LMDB.
    server = new GameServerConnection(cli.grpc, { serverId: 's1', endpoint: 's1:1', maxGames: 1 }, { decide: () => 'ignore' });
    await server.connect();
    client = new MatchmakerClient(cli.grpc, credentials.createInsecure());
  });
  afterAll(() => {
    client?.close();
    server?.close();
    cli?.child.kill('SIGKILL');
    try {
      execFileSync('umount', ['-l', disk]);
    } catch {
      // not mounted: beforeAll failed, and said why
    }
    rmSync(work, { recursive: true, force: true });
  });

  const findOne = (ticketId: string) =>
    new Promise<{ queued: boolean; error?: ServiceError }>((resolve) => {
      const call = client.findGame(findGameRequest({ ticketId, template: 'solo', party: [`p-${ticketId}`], partition: { region: 'eu' } }));
      call.on('data', (u: FindGameUpdate) => {
        if (u.update?.$case === 'queued') {
          resolve({ queued: true });
          call.cancel();
        }
      });
      call.on('error', (error: ServiceError) => resolve({ queued: false, error }));
    });

  it('refuses new tickets with UNAVAILABLE naming the store, keeps the waiting ones, and takes tickets again when space returns', async () => {
    const stream = client.findGames();
    const queued = new Set<string>();
    const refused: string[] = [];
    const otherErrors: string[] = [];
    stream.on('data', (u: FindGameUpdate) => {
      if (u.update?.$case === 'queued') queued.add(u.ticketId);
      else if (u.update?.$case === 'error' && u.update.value.code === status.UNAVAILABLE && STORE_REFUSAL.test(u.update.value.message)) refused.push(u.ticketId);
      else otherErrors.push(`${u.ticketId}: ${JSON.stringify(u.update)}`);
    });
    let streamEnded: unknown;
    stream.on('error', (e) => (streamEnded = e));
    // Long ids fill the disk quickly; stop at the first refusal.
    const pad = 'x'.repeat(110);
    for (let i = 0; i < 40_000 && refused.length === 0 && exited === undefined; i++) {
      stream.write({ request: { $case: 'find', value: findGameRequest({ ticketId: `t${i}-${pad}`, template: 'solo', party: [`p${i}-${pad}`], partition: { region: 'eu' } }) } });
      if (i % 100 === 99) await sleep(20);
    }
    await until(() => refused.length > 0 || exited !== undefined, 30_000, 'a ticket refused by the full store');
    expect(exited).toBeUndefined();
    expect(refused.length).toBeGreaterThan(0);
    expect(otherErrors).toEqual([]);
    expect(queued.size).toBeGreaterThan(100);

    // Whatever space is left goes to a second filler. Small commits may still land in pages a
    // failed one gave back, but only a probe with headroom lets new tickets in again: a new
    // FindGame is refused, with a retry hint, and stays refused while the disk is full. A probe
    // that landed before the second filler took the last pages lets the next find in; its commit
    // fails and the store refuses again: the refusal is awaited, however slow the machine.
    fillTheRest(join(disk, 'filler-2'));
    let refusedFind = await findOne('new-while-full-0');
    const deadline = Date.now() + 30_000;
    for (let i = 1; refusedFind.error === undefined && Date.now() < deadline; i++) refusedFind = await findOne(`new-while-full-${i}`);
    expect(refusedFind.error?.code).toBe(status.UNAVAILABLE);
    expect(refusedFind.error?.details).toMatch(STORE_REFUSAL);
    expect(Number(refusedFind.error?.metadata.get('retry-after-ms')[0])).toBeGreaterThan(0);

    // Space returns: within a few probes, new tickets are taken again.
    rmSync(join(disk, 'filler'));
    rmSync(join(disk, 'filler-2'));
    let after = await findOne('after-0');
    for (let i = 1; !after.queued; i++) {
      await sleep(200); // a poll's pace, not a verdict: the loop waits for a find to be taken
      after = await findOne(`after-${i}`);
    }
    expect(after.queued).toBe(true);

    // The waiting tickets kept their place: the stream is open and none of them ended.
    expect(streamEnded).toBeUndefined();
    expect(otherErrors).toEqual([]);
    expect(exited).toBeUndefined();
    const log = cli.output();
    // lmdb-js prints each failed commit's cause itself (console.error); nothing goes unhandled.
    expect(log).not.toMatch(/unhandled|uncaught|triggerUncaughtException/i);
    expect(log).toMatch(/"error":"(No space left on device|Input\/output error)/);
    expect(log).toContain('ticket store cannot write (disk full?)');
    expect(log).toContain('ticket store writes again');
    stream.cancel();
  });
});
