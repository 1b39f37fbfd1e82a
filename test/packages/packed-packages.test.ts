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
    npm(['pack', '--silent', '--pack-destination', work, '-w', '@gamefactory/protocol', '-w', '@gamefactory/game-server-sdk', '-w', '@gamefactory/matchmaking-client'], ROOT);
    const coordinator = new Spawned('npx', ['gamefactory', 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(work, 'data')], { cwd: ROOT });
    running.push(coordinator);
    address = `127.0.0.1:${(await coordinator.waitFor(/"grpc":"127\.0\.0\.1:(\d+)"/, 60_000))[1]}`;
  }, 120_000);

  afterAll(async () => {
    for (const child of running) await child.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const install = (pkg: string) => {
    const dir = join(work, pkg);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `try-${pkg}`, private: true, type: 'module' }));
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, 'gamefactory-protocol-1.0.0.tgz'), join(work, `gamefactory-${pkg}-1.0.0.tgz`)], dir);
    writeFileSync(join(dir, 'example.mjs'), readmeExample(pkg));
    return dir;
  };

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
