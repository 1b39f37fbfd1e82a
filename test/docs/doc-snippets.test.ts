import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Spawned } from '../packages/spawned.js';
import { blocks, commandLines, PAGES, ROOT, type CommandLine } from './snippets.js';

/**
 * Every YAML block and every `npx gamefactory` / `npm` command in README.md and docs/ is run, so
 * the docs cannot drift from the code: a block is read by the coordinator's own config schema (and
 * `gamefactory check` runs on each whole factories file), and each command is run against a
 * coordinator started here, with the docs' address swapped for its own. Commands that would take
 * the machine (the whole suite, a bench, nodes of a Redis cluster) are checked for the script, the
 * bench or each flag they name, as `--help` lists it.
 */
const work = mkdtempSync(join(tmpdir(), 'gamefactory-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const yamlBlocks = PAGES.flatMap((page) => blocks(page)).filter((b) => b.lang === 'yaml');
const shipped = readFileSync(join(ROOT, 'factories.yaml'), 'utf8');

/** A block that is one section of a config (`security:` alone) is read in the shipped file, in place of its own. */
const asConfigFile = (text: string) => {
  const block = parse(text) as Record<string, unknown>;
  return 'factories' in block ? text : stringify({ ...(parse(shipped) as Record<string, unknown>), ...block });
};

describe('every yaml block in README.md and docs/', () => {
  it('there are some', () => expect(yamlBlocks.length).toBeGreaterThanOrEqual(4));

  it.each(yamlBlocks.map((b) => [`${b.page}:${b.line}`, b] as const))('%s is a valid configuration', (_where, block) => {
    expect(() => parseConfig(asConfigFile(block.text), `${block.page}:${block.line}`)).not.toThrow();
  });

  const factoryFiles = yamlBlocks.filter((b) => 'factories' in (parse(b.text) as object));
  it.each(factoryFiles.map((b) => [`${b.page}:${b.line}`, b] as const))('`gamefactory check` previews %s and exits 0', (_where, block) => {
    const file = join(work, `check-${block.page.replace(/\W/g, '-')}-${block.line}.yaml`);
    writeFileSync(file, block.text);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'check', file, '--rates', '5', '--tickets', '200'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${file}: valid`);
  });
});

const commands = commandLines();
const sub = (c: CommandLine) => (c.words[0] === 'npx' ? c.words[2]! : `npm ${c.words[1]}`);
const flagsOf = (c: CommandLine) => c.words.filter((w) => w.startsWith('--') && w !== '--');

/** The flags `gamefactory <command> --help` lists. */
const helpCache = new Map<string, string>();
function help(command: string): string {
  if (!helpCache.has(command)) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', command, '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    helpCache.set(command, run.stdout);
  }
  return helpCache.get(command)!;
}

describe('every `npx gamefactory` and `npm` command in README.md and docs/', () => {
  it('there are some of each', () => {
    expect(commands.filter((c) => c.words[0] === 'npx').length).toBeGreaterThanOrEqual(8);
    expect(commands.filter((c) => c.words[0] === 'npm').length).toBeGreaterThanOrEqual(4);
  });

  it.each(commands.filter((c) => c.words[0] === 'npx').map((c) => [c.where, c.words.join(' '), c] as const))('%s `%s` names flags its command has', (_where, _line, c) => {
    const listed = help(sub(c));
    for (const flag of flagsOf(c)) expect(listed, `${c.where}: ${flag}`).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s<[]`, 'm'));
  });

  it.each(commands.filter((c) => c.words[0] === 'npm').map((c) => [c.where, c.words.join(' '), c] as const))('%s `%s` is a script (or npm\'s own)', (_where, _line, c) => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const [, verb, ...rest] = c.words;
    if (verb === 'ci') return expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
    const script = verb === 'run' ? rest[0]! : verb!;
    expect(Object.keys(scripts)).toContain(script);
    if (script === 'bench') {
      const filter = rest.slice(rest.indexOf('--') + 1).find((w) => !w.startsWith('--')) ?? '';
      expect(readdirSync(join(ROOT, 'perf/bench')).filter((f) => f.endsWith('.bench.ts') && f.includes(filter))).not.toEqual([]);
    }
  });
});

describe('the commands, run against a coordinator', () => {
  const running: Spawned[] = [];
  let address = '';

  const spawnCommand = (c: CommandLine, extra: string[] = []) => {
    const words = c.words.map((w) => w.replace(/^(127\.0\.0\.1|localhost):50051$/, address));
    const child = new Spawned(words[0]!, [...words.slice(1), ...extra], { cwd: ROOT });
    running.push(child);
    return child;
  };
  /** The docs' commands that talk to a coordinator at its default address are pointed at ours. */
  const pointed = (c: CommandLine) => (c.words.includes('--coordinator') ? [] : ['--coordinator', address]);
  const named = (subcommand: string) => commands.filter((c) => c.words[0] === 'npx' && c.words[2] === subcommand);

  beforeAll(async () => {
    const coordinator = new Spawned('npx', ['gamefactory', 'start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(work, 'data')], { cwd: ROOT });
    running.push(coordinator);
    address = `127.0.0.1:${(await coordinator.waitFor(/"grpc":"127\.0\.0\.1:(\d+)"/, 60_000))[1]}`;
  }, 90_000);

  afterAll(async () => {
    for (const child of running) await child.stop();
  });

  it('`npm start -- ...` starts a coordinator (on free ports here)', async () => {
    const starts = commands.filter((c) => c.words[0] === 'npm' && c.words[1] === 'start');
    expect(starts.length).toBeGreaterThan(0);
    for (const c of starts) {
      const extra = [...(c.words.includes('--') ? [] : ['--']), '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(work, `npm-start-${running.length}`)];
      const child = spawnCommand(c, extra);
      await child.waitFor(/listening|"grpc":/, 90_000);
      await child.stop();
    }
  }, 200_000);

  it('`check` runs as written', () => {
    expect(named('check').length).toBeGreaterThan(0);
    for (const c of named('check')) {
      const run = spawnSync(c.words[0]!, [...c.words.slice(1), '--tickets', '200'], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, `${c.where}: ${run.stderr}`).toBe(0);
    }
  }, 120_000);

  it('the example server hosts what every `find` asks for, and each find is assigned a game', async () => {
    const [server] = named('example-server');
    expect(server).toBeDefined();
    const child = spawnCommand(server!, pointed(server!));
    await child.waitFor(/hosting \d+ factor|connected/, 60_000);
    const finds = named('find').map((c) => spawnCommand(c, [...pointed(c), '--timeout', '60000']));
    expect(finds.length).toBeGreaterThanOrEqual(3);
    for (const find of finds) {
      expect(await find.exited, find.log).toBe(0);
      expect(find.log).toMatch(/assign/i);
    }
  }, 180_000);

  it('`loadgen` runs as written and finishes every ticket', async () => {
    expect(named('loadgen').length).toBeGreaterThan(0);
    for (const c of named('loadgen')) {
      const child = spawnCommand(c, pointed(c));
      expect(await child.exited, child.log).toBe(0);
    }
  }, 300_000);
});

describe('every relative link in README.md and docs/', () => {
  const links = PAGES.flatMap((page) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
      .map((target) => [page, target] as const),
  );
  it.each(links)('%s → %s is in a clone', (page, target) => {
    const path = join(ROOT, page, '..', target.split('#')[0]!);
    expect(path.startsWith(ROOT), `${target} leaves the repository`).toBe(true);
    expect(existsSync(path), path).toBe(true);
  });
});
