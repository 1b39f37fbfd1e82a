import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Spawned } from './spawned.js';

const ROOT = join(import.meta.dirname, '../..');
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The first ```js block of a package's README: what an adopter copies. */
function readmeExample(pkg: string): string {
  const readme = readFileSync(join(ROOT, 'packages', pkg, 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error(`packages/${pkg}/README.md has no js example`);
  return block[1]!;
}

/**
 * What a studio does on the first afternoon: `npm pack` each package, install the tarball into an
 * empty directory (nothing else of this repository there), and run its README's example as
 * written against a coordinator started with `npx gamefactory start`.
 */
describe('the packed packages, installed on their own', () => {
  const work = mkdtempSync(join(tmpdir(), 'gamefactory-packs-'));
  const running: Spawned[] = [];
  let address = '';

  beforeAll(async () => {
    const coordinator = new Spawned('npx', ['gamefactory', 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(work, 'data')], { cwd: ROOT });
    running.push(coordinator);
    address = `127.0.0.1:${(await coordinator.waitFor(/"grpc":"127\.0\.0\.1:(\d+)"/, 60_000))[1]}`;
  }, 120_000);

  afterAll(async () => {
    for (const child of running) await child.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * The install lines of a package's README, run as written: the first (`npm pack ... --pack-destination
   * ~/my-game`) in the clone, the second (`npm install ./...tgz`) in the project, with ~/my-game the
   * project's directory here.
   */
  const readmeInstall = (pkg: string, dir: string) => {
    const readme = readFileSync(join(ROOT, 'packages', pkg, 'README.md'), 'utf8');
    const lines = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(lines).toHaveLength(2);
    const [pack, install] = lines.map((l) => l.split(/\s+/).map((w) => (w === '~/my-game' ? dir : w)));
    expect(pack!.slice(0, 2)).toEqual(['npm', 'pack']);
    expect(install!.slice(0, 2)).toEqual(['npm', 'install']);
    npm([...pack!.slice(1), '--silent'], ROOT);
    // --prefer-offline: the registry's dependencies (grpc-js, protobuf) come from npm's cache when it has them.
    npm([...install!.slice(1), '--no-audit', '--no-fund', '--prefer-offline'], dir);
  };

  const install = (pkg: string) => {
    const dir = join(work, pkg);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `try-${pkg}`, private: true, type: 'module' }));
    readmeInstall(pkg, dir);
    writeFileSync(join(dir, 'example.mjs'), readmeExample(pkg));
    return dir;
  };

  it('one project with both packages, installed by both READMEs\' lines, hosts and finds a game', async () => {
    const dir = join(work, 'studio');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'studio', private: true, type: 'module' }));
    readmeInstall('game-server-sdk', dir);
    readmeInstall('matchmaking-client', dir);
    writeFileSync(
      join(dir, 'both.mjs'),
      `import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
const addresses = [process.env.GAMEFACTORY_ADDRESS];
const server = new GameServer({ addresses, serverId: 'studio-1', endpoint: '127.0.0.1:7000', attributes: { version: 'v202' }, capacity: { maxGames: 1 }, createGame: () => 'studio-game' });
const admitted = new Promise((resolve) => server.on('seatsReserved', ({ gameId, seats }) => Promise.all(seats.map((s) => server.admit(gameId, s.playerId, s.token).then(() => console.log(s.playerId + ' admitted')))).then(resolve)));
await server.start();
const matchmaker = new Matchmaker({ addresses });
const assignment = await matchmaker.find({ template: 'diablo', party: ['zoe'], partition: { difficulty: 'normal', hardcore: false, version: 'v202' } }).assignment;
console.log('assigned ' + assignment.gameId);
await admitted;
matchmaker.close();
server.close();
`,
    );
    const run = new Spawned(process.execPath, ['both.mjs'], { cwd: dir, env: { ...process.env, GAMEFACTORY_ADDRESS: address } });
    running.push(run);
    expect(await run.exited, run.log).toBe(0);
    expect(run.log).toContain('assigned studio-game');
    expect(run.log).toContain('zoe admitted');
    // Nothing in the project leads back into the clone: the packages are copies, not links.
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).not.toContain(ROOT);
  }, 240_000);

  it('the game-server SDK example hosts the game the client example finds', async () => {
    const serverDir = install('game-server-sdk');
    const clientDir = install('matchmaking-client');
    const env = { ...process.env, GAMEFACTORY_ADDRESS: address };
    const server = new Spawned(process.execPath, ['example.mjs'], { cwd: serverDir, env });
    running.push(server);
    await server.waitFor(/connected; hosting \d+ factories/, 30_000);

    const client = new Spawned(process.execPath, ['example.mjs'], { cwd: clientDir, env });
    running.push(client);
    expect(await client.exited, client.log).toBe(0);
    expect(client.log).toMatch(/play at 127\.0\.0\.1:7777, game eu-1-g1/);
    await server.waitFor(/alice joined eu-1-g1/, 10_000);
    expect(server.log).toContain('new game in diablo/difficulty=hard/hardcore=false/version=v201 for alice');
  }, 180_000);
});
