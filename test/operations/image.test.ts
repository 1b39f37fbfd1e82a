import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';
import { commandsOf, execForm, ignoredBy, parseDockerfile, type Stage } from './dockerfile.js';

/**
 * The image and the compose file, checked without a container engine: the Dockerfile's build
 * stage builds the dist/ that CI builds, its runtime stage runs what `npm ci --omit=dev`
 * installs as a non-root user with a gRPC health check, and the compose file parses and names
 * only flags `gamefactory start` accepts.
 */
const root = process.cwd();
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const stages = parseDockerfile(read('Dockerfile'));
const stage = (name: string): Stage => stages.find((s) => s.name === name) ?? expect.unreachable(`no stage "${name}"`);
const runs = (s: Stage) => s.instructions.filter((i) => i.keyword === 'RUN').flatMap((i) => commandsOf(i.args));
const ignored = ignoredBy(read('.dockerignore').split('\n'));
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; workspaces: string[] };

/** Every file under `dir`, relative to it, but the build's own bookkeeping (tsc's incremental state). */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.endsWith('.tsbuildinfo')) out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

describe('the image (Dockerfile)', () => {
  const temps: string[] = [];
  afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('builds as CI does: `npm ci` in a copy of the repository, its postinstall being the build', () => {
    const build = stage('build');
    // CI's install line (.ci/run), which builds through package.json's postinstall.
    const ci = read('.ci/run').split('\n').map((line) => line.trim());
    expect(ci).toContain('npm ci');
    expect(packageJson.scripts.postinstall).toBe('npm run build');
    expect(runs(build)).toEqual(['npm ci']);
    expect(build.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['. .']);
  });

  it("the build stage's context builds the same dist/ as the repository's build, file for file", { timeout: 600_000 }, () => {
    // The context: what git tracks (a fresh clone, as CI has) less what .dockerignore leaves out.
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((path) => path !== '' && existsSync(join(root, path)));
    const context = tracked.filter((path) => !ignored(path));
    expect(context.length).toBeGreaterThan(100);
    const copy = mkdtempSync(join(tmpdir(), 'gamefactory-image-'));
    temps.push(copy);
    for (const path of context) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      cpSync(join(root, path), join(copy, path));
    }
    // `npm ci` would fetch the same locked packages; the build is its postinstall, run here.
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const built = spawnSync('npm', ['run', 'build'], { cwd: copy, encoding: 'utf8' });
    expect(built.status, built.stdout + built.stderr).toBe(0);
    // The repository's dist/ is CI's (`npm test` builds it first).
    for (const dist of ['dist', ...packageJson.workspaces.map((w) => `${w}/dist`)]) {
      const ours = files(join(copy, dist));
      expect(ours, `${dist}: the image builds other files than CI (run \`npm run build\` if dist/ is stale)`).toEqual(files(join(root, dist)));
      for (const file of ours) expect(readFileSync(join(copy, dist, file)).equals(readFileSync(join(root, dist, file))), `${dist}/${file}`).toBe(true);
    }
    expect(existsSync(join(copy, 'dist/src/cli/bin.js'))).toBe(true);
  });

  it('runs the built dist/ on dependencies installed without devDependencies, as a non-root user, with a gRPC health check', () => {
    const runtime = stage('runtime');
    expect(runs(runtime)).toContain('npm ci --omit=dev --ignore-scripts');
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toContain('--from=build /src/dist ./dist');
    for (const workspace of packageJson.workspaces) {
      expect(copies).toContain(`${workspace}/package.json ${workspace}/`);
      expect(copies).toContain(`--from=build /src/${workspace}/dist ${workspace}/dist`);
    }
    // What it copies from the context is there, and not left out of it.
    for (const args of copies.filter((a) => !a.startsWith('--from'))) {
      for (const source of args.split(/\s+/).slice(0, -1)) {
        expect(existsSync(join(root, source)), source).toBe(true);
        expect(ignored(source), source).toBe(false);
      }
    }
    const user = runtime.instructions.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(user).toEqual(['node']);
    const health = runtime.instructions.find((i) => i.keyword === 'HEALTHCHECK')!;
    const check = execForm(health.args.replace(/^.*?CMD\s+/, ''));
    expect(check).toEqual(['node', 'ops/docker/healthcheck.mjs']);
    expect(execForm(runtime.instructions.find((i) => i.keyword === 'ENTRYPOINT')!.args)).toEqual(['node', 'dist/src/cli/bin.js']);
  });
});

describe('the compose file: three nodes on one Redis', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { command?: string[]; image?: string; volumes?: string[]; ports?: string[]; depends_on?: Record<string, unknown> }>;
    volumes: Record<string, unknown>;
  };
  const nodes = Object.entries(compose.services).filter(([name]) => name !== 'redis');

  it('runs Redis with an append-only file on a volume, and three coordinator nodes of the image on it', () => {
    const redis = compose.services.redis!;
    expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(redis.volumes).toContain('redis-data:/data');
    expect(nodes).toHaveLength(3);
    for (const [name, node] of nodes) {
      expect(node.image, name).toBe('gamefactory:local');
      expect(node.depends_on, name).toHaveProperty('redis');
      const command = node.command!;
      expect(command[0]).toBe('start');
      expect(command[command.indexOf('--redis') + 1], name).toBe('redis://redis:6379');
      // Each node's LMDB directory is its own volume.
      expect(node.volumes, name).toContain(`${name}-data:${command[command.indexOf('--data') + 1]}`);
    }
    const published = nodes.flatMap(([, node]) => node.ports!.map((p) => p.split(':')[0]));
    expect(new Set(published).size).toBe(published.length);
  });

  it('names only flags `gamefactory start` accepts', { timeout: 60_000 }, async () => {
    const help = await runCli(['start', '--help']);
    expect(help.code, help.output).toBe(0);
    const accepted = new Set(help.output.match(/--[a-z][a-z-]*/g));
    expect(accepted).toContain('--redis');
    for (const [name, node] of nodes) {
      for (const flag of node.command!.filter((word) => word.startsWith('--'))) expect(accepted, `${name}: ${flag}`).toContain(flag);
    }
  });
});
