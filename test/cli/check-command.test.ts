import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const gamefactory = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8' });

/** `gamefactory check`, as docs/configuration.md shows it. */
describe('gamefactory check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a broken config: every error with its path, exit 1', () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      ['factories:', '  - name: duel', '    competitive: { teams: 1, teamSize: 1, expansion: [] }', '  - name: coop', '    cooperative: { maxPlayers: 0 }', ''].join('\n'),
    );
    const run = gamefactory('check', broken);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${broken}: invalid configuration`);
    expect(run.stderr).toContain('at factories[0].competitive.teams:');
    expect(run.stderr).toContain('at factories[0].competitive.expansion:');
    expect(run.stderr).toContain('at factories[1].cooperative.maxPlayers:');
    expect(run.stdout).toBe('');
  });

  it('factories.yaml: valid, the factories a server would serve, and a preview per competitive template and rate', () => {
    const run = gamefactory('check', 'factories.yaml', '--server-attr', 'version=v201', 'difficulty=hard', '--rates', '2,20', '--tickets', '500');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('factories.yaml: valid');
    expect(run.stdout).toContain('diablo (cooperative): 20 factories');
    expect(run.stdout).toContain('a server with version=v201, difficulty=hard would serve 3 factories:');
    expect(run.stdout).toContain('  diablo/difficulty=hard/hardcore=true/version=v201');
    expect(run.stdout).toContain('  duel/version=v201');
    const rows = run.stdout.split('\n').filter((line) => /^\s+duel\s+\d+\s+\d+\s+[\d.]+ s/.test(line));
    expect(rows.map((line) => line.trim().split(/\s+/)[1])).toEqual(['2', '20']);
  });

  it('the same seed gives the same preview; a bad flag names itself and exits 2', () => {
    const once = gamefactory('check', 'factories.yaml', '--rates', '10', '--tickets', '300', '--seed', '7');
    const again = gamefactory('check', 'factories.yaml', '--rates', '10', '--tickets', '300', '--seed', '7');
    expect(again.stdout).toBe(once.stdout);
    const bad = gamefactory('check', 'factories.yaml', '--rates', '10,fast');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--rates: "fast" must be a number > 0');
  });
});
