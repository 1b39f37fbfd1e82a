import { Matchmaker, type Assignment } from '@gamefactory/matchmaking-client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLoad } from '../../clients/loadgen/load-generator.js';
import { seededRandom } from '../../src/competitive/index.js';

/** 1v1 whose windows never widen past 50 points: a pair further apart waits until a reload widens them. */
const NARROW = `
placement: { policy: fill, createTimeoutMs: 10000, maxQueuedPerFactory: 100000, ticketTtlSeconds: 600 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 10000, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 50 }]
`;
/** The change made under load: windows widen to 1000 points after a second, and a cooperative template comes. */
const WIDER = `${NARROW.replace('[{ afterSeconds: 0, maxScoreGap: 50 }]', '[{ afterSeconds: 0, maxScoreGap: 50 }, { afterSeconds: 1, maxScoreGap: 1000 }]')}  - name: coop
    partitioning: { mode: [story] }
    cooperative: { maxPlayers: 2 }
`;
/** Invalid: a team of nobody. */
const BROKEN = WIDER.replace('teamSize: 1', 'teamSize: 0');

/** The compiled bin as an operator runs it, JSON logs on stdout; resolves with the ports it chose. */
function startBin(dir: string): Promise<{ child: ChildProcess; grpc: number; metrics: number; log: () => string }> {
  const child = spawn(
    process.execPath,
    [join(process.cwd(), 'dist/src/cli/main.js'), 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0',
      '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data')],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const grpc = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(out);
      const metrics = /"metrics":"127\.0\.0\.1:(\d+)"/.exec(out);
      if (grpc && metrics) {
        clearInterval(poll);
        resolve({ child, grpc: Number(grpc[1]), metrics: Number(metrics[1]), log: () => out });
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`the coordinator exited (${code}) before listening:\n${out}`));
    });
  });
}

const until = async (check: () => boolean | Promise<boolean>) => {
  while (!(await check())) await new Promise((r) => setTimeout(r, 25));
};

/**
 * Live reload on the real process under the load generator: an invalid file (Admin.ReloadConfig)
 * is refused and changes nothing; a valid one (SIGHUP) widens a competitive factory's expansion
 * and adds a template while tickets pour in; no ticket is lost, the tickets that waited pair under
 * the new windows, new tickets follow them, and the load generator's servers serve the new template.
 */
describe('reloading factories.yaml under load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-reload-'));
  const config = join(dir, 'factories.yaml');
  writeFileSync(config, NARROW);
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a valid change whole and refuses an invalid one, without losing a ticket', { timeout: 240_000 }, async () => {
    const bin = await startBin(dir);
    child = bin.child;
    const address = `127.0.0.1:${bin.grpc}`;
    const metric = async (name: string) => {
      const text = await (await fetch(`http://127.0.0.1:${bin.metrics}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(name));
      return line === undefined ? NaN : Number(line.split(' ').pop());
    };

    // The load: 1v1 tickets, scores ~ N(1500, 200), 100 a second for 30 s.
    const random = seededRandom(7);
    const scores = Array.from({ length: 3000 }, () => 1500 + 200 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
    let progress = 0;
    const load = runLoad({
      address,
      servers: 4,
      maxGamesPerServer: 5000,
      playersPerGame: 2,
      tickets: scores.length,
      rate: 100,
      concurrency: scores.length,
      mode: 'stream',
      template: 'duel',
      partition: {},
      runId: 'load',
      score: (i) => scores[i] as number,
      onProgress: (done) => (progress = done),
    });
    const players = new Matchmaker({ addresses: address });
    const assigned = new Map<string, Assignment>();
    const find = (id: string, template: string, score?: number, partition: Record<string, string> = {}) => {
      const ticket = players.find({ ticketId: id, template, party: [score === undefined ? id : { playerId: id, score }], partition });
      const assignment = ticket.assignment.then((a) => {
        assigned.set(id, a);
        return a;
      });
      return assignment;
    };
    // Two players 300 points apart, far from everyone: under the running windows they can never pair.
    const far = Promise.all([find('far-a', 'duel', 20_000), find('far-b', 'duel', 20_300)]);
    await until(() => progress >= 300);

    // Invalid, through the Admin call: refused with check's errors; the running config is untouched.
    writeFileSync(config, BROKEN);
    const { AdminClient } = await import('../../src/generated/gamefactory/v1/admin.js');
    const { credentials } = await import('@grpc/grpc-js');
    const admin = new AdminClient(address, credentials.createInsecure());
    const refused = await new Promise<{ code?: number; details?: string }>((resolve) => admin.reloadConfig({}, (e) => resolve(e ?? {})));
    admin.close();
    expect(refused.code).toBe(3); // INVALID_ARGUMENT
    expect(refused.details).toContain('at factories[0].competitive.teamSize');
    expect(await metric('gamefactory_config_reloads_total{outcome="invalid"}')).toBe(1);
    expect(assigned.has('far-a') || assigned.has('far-b')).toBe(false);
    await expect(find('early-coop', 'coop', undefined, { mode: 'story' })).rejects.toMatchObject({ code: 5 }); // NOT_FOUND: no such template yet

    // Valid, through SIGHUP, while the load goes on.
    writeFileSync(config, WIDER);
    const progressAtReload = progress;
    bin.child.kill('SIGHUP');
    await until(async () => (await metric('gamefactory_config_reloads_total{outcome="applied"}')) === 1);
    expect(progressAtReload).toBeLessThan(scores.length);
    // The log line reaches the pipe a moment after the metric moves.
    const reloaded = /"changes":\["template \\"duel\\": competitive.expansion changed","template \\"coop\\" added"\],"msg":"configuration reloaded"/;
    await until(() => reloaded.test(bin.log()));

    // The pair that waited under the old windows plays under the new ones, waits kept; so do newcomers.
    const [a, b] = await far;
    expect(a.gameId).toBe(b.gameId);
    const [c, d] = await Promise.all([find('new-a', 'duel', 40_000), find('new-b', 'duel', 40_400)]);
    expect(c.gameId).toBe(d.gameId);
    // The load generator's servers, connected before the reload, serve the new template.
    const coop = await find('coop-1', 'coop', undefined, { mode: 'story' });
    expect(coop).toMatchObject({ factory: 'coop/mode=story', serverId: expect.stringMatching(/^load-server\d$/) });

    const report = await load;
    players.close();
    expect(report.errorsByCode).toEqual({});
    expect(report.assigned).toBe(scores.length);
    expect(await metric('gamefactory_config_last_reload_successful')).toBe(1);
    expect(readFileSync(config, 'utf8')).toBe(WIDER);
  });
});
