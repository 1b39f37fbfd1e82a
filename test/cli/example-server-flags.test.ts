import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const gamefactory = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

/** How long the example server's games run is a flag its help and the docs name, not a hidden minute. */
describe('example-server --game-seconds', () => {
  it('is listed with its default, and a bad value names the flag', () => {
    expect(gamefactory('example-server', '--help').stdout.replace(/\s+/g, ' ')).toContain('--game-seconds <n> each game ends this long after it starts, freeing its slot (0: never) (default: "60")');
    const bad = gamefactory('example-server', '--game-seconds', 'soon', '--coordinator', '127.0.0.1:1');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--game-seconds: "soon" must be a number >= 0');
  });
});
