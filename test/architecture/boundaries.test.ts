import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Issue 10, "Layout that shows it" and "Edges on interfaces": the import rules, checked. */
const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]!);
}

const rel = (file: string) => relative(ROOT, file).replaceAll('\\', '/');

describe('the layout', () => {
  it('only the client commands reach the client-side code (clients/); the coordinator never does', () => {
    const offenders = sources(join(ROOT, 'src'))
      .filter((f) => rel(f) !== 'src/cli/client-commands.ts')
      .filter((f) => imports(f).some((i) => i.includes('/clients/')))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('the coordinator never imports the packages it ships for game servers and clients', () => {
    const offenders = sources(join(ROOT, 'src'))
      .filter((f) => imports(f).some((i) => i.startsWith('@gamefactory/') || i.includes('/packages/')))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('client-side code is built on the packages: nothing from src/, not even the generated contract', () => {
    const offenders = sources(join(ROOT, 'clients'))
      .filter((f) => imports(f).some((i) => i.includes('/src/')))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('each package stands alone: it imports its own files, @gamefactory/protocol, grpc-js and node, nothing of the repository', () => {
    // A relative import must stay inside its package's src/; `#name` must be one of the package's own subpath imports.
    const allowed = (file: string, name: string, i: string) =>
      (i.startsWith('.') && resolve(dirname(file), i).startsWith(join(ROOT, 'packages', name, 'src') + sep)) ||
      (i.startsWith('#') && i in ((JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as { imports?: object }).imports ?? {})) ||
      i.startsWith('@gamefactory/protocol') ||
      i === '@grpc/grpc-js' ||
      i === '@bufbuild/protobuf/wire' ||
      i.startsWith('node:');
    const packages = readdirSync(join(ROOT, 'packages')).filter((name) => statSync(join(ROOT, 'packages', name)).isDirectory());
    expect(packages.sort()).toEqual(['game-server-sdk', 'match-function-example', 'matchmaking-client', 'protocol']);
    const offenders = packages.flatMap((name) =>
      sources(join(ROOT, 'packages', name, 'src')).flatMap((f) => imports(f).filter((i) => !allowed(f, name, i)).map((i) => `${rel(f)}: ${i}`)),
    );
    expect(offenders).toEqual([]);
  });

  it('transport, metrics, the operator page and stats read the core through its edges, never the core itself', () => {
    const edgeDirs = ['src/transport', 'src/metrics', 'src/operator-page'].map((d) => join(ROOT, d));
    const offenders = [...edgeDirs.flatMap(sources), join(ROOT, 'src/coordinator/stats-query.ts')]
      .filter((f) => imports(f).some((i) => /coordinator-core\.js$|\/app\/core-host\.js$/.test(i)))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('the core does no I/O: nothing under src/coordinator imports a transport, a store, Redis, node: modules or the edge', () => {
    const offenders = sources(join(ROOT, 'src/coordinator'))
      .filter((f) => imports(f).some((i) => /^node:|@grpc|ioredis|lmdb|prom-client|\/transport\/|\/storage\/|\/redis\/|\/app\/|\/metrics\//.test(i)))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it('the core schedules nothing: no timer, microtask or promise under src/coordinator (ports.ts holds the real timers of the edge)', () => {
    const offenders = sources(join(ROOT, 'src/coordinator'))
      .filter((f) => rel(f) !== 'src/coordinator/ports.ts')
      .filter((f) => /\bset(Timeout|Interval|Immediate)\(|queueMicrotask|\.then\(|\bawait\b|\basync\b|new Promise/.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(offenders).toEqual([]);
  });
});
