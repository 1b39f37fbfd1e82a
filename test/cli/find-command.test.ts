import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameServer } from '@gamefactory/game-server-sdk';
import { TestCoordinator } from '../integration/harness.js';

const ROOT = join(import.meta.dirname, '../..');
const YAML = `
factories:
  - name: duel
    partitioning: { version: [v201] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 20 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100, maxLatencyMs: 80 }]
      regions: [us-east, eu-west]
`;

/** `gamefactory find` for a competitive factory, with the flags the README uses. */
describe('gamefactory find', () => {
  let coordinator: TestCoordinator;
  let server: GameServer;
  const find = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'find', '--coordinator', coordinator.address, ...args], { cwd: ROOT });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  beforeAll(async () => {
    coordinator = await TestCoordinator.start(YAML);
    server = new GameServer({ addresses: coordinator.address, serverId: 'arena', endpoint: 'arena:7777', capacity: { maxGames: 10 }, createGame: () => {} });
    await server.start();
  });
  afterAll(async () => {
    server.close();
    await coordinator.stop();
  });

  it('scores and latencies reach the matcher: close scores in one region play together', async () => {
    const duel = ['--template', 'duel', '--partition', 'version=v201'];
    const [bob, carol] = await Promise.all([
      find(...duel, '--player', 'bob:1500', '--latency', 'us-east=30', 'eu-west=90'),
      find(...duel, '--player', 'carol', '--score', '1540', '--latency', 'us-east=45', '--json'),
    ]);
    expect(bob.code, bob.stderr).toBe(0);
    expect(bob.stdout).toMatch(/matched into a new game \(duel\/version=v201\)\nassigned: arena:7777 {2}game arena-g1 .* region us-east, team \d/);
    const last = JSON.parse(carol.stdout.trim().split('\n').at(-1)!) as { assignment: { gameId: string; region: string } };
    expect(last.assignment).toMatchObject({ gameId: 'arena-g1', region: 'us-east' });
  }, 30_000);

  it('a score the matcher cannot read, a bad latency and a deadline each say what happened', async () => {
    const duel = ['--template', 'duel', '--partition', 'version=v201'];
    const badScore = await find(...duel, '--player', 'dave:strong');
    expect(badScore.code).toBe(2);
    expect(badScore.stderr).toContain('--player dave:strong: "strong" is not a number');
    const badLatency = await find(...duel, '--player', 'dave:1500', '--latency', 'eu-west');
    expect(badLatency.code).toBe(2);
    expect(badLatency.stderr).toContain('--latency: "eu-west" must be region=milliseconds');
    const alone = await find(...duel, '--player', 'erin:3000', '--timeout', '500');
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('failed: DEADLINE_EXCEEDED');
  }, 30_000);
});
