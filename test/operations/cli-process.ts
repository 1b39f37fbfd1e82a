import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** How the command is run: `compiled` is the built entry as installed (`npm test` builds first). */
export interface CliLaunch {
  /** dist/src/cli/bin.js: it starts in a moment, and no tsx loader takes the signals from its first line. */
  readonly compiled?: boolean;
  /** Options for node itself (a `--require` preload). */
  readonly nodeArgs?: readonly string[];
}

/**
 * The CLI as an operator runs it (its entry, bin.ts), from the sources (tsx's loader, so the test
 * needs no build) in one process, or compiled: the `tsx` command would run the coordinator in a
 * child of its own, which a SIGKILL of the command leaves running after the test.
 */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, launch: CliLaunch = {}): ChildProcess {
  const entry = launch.compiled ? ['dist/src/cli/bin.js'] : ['--import', 'tsx', 'src/cli/bin.ts'];
  return spawn(process.execPath, [...(launch.nodeArgs ?? []), ...entry, ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
}

/** Runs the CLI to its exit: its code, signal and everything it printed. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliExit> {
  const child = spawnCli(args, env);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, output })));
}

/** Starts the CLI and resolves once it logs where it listens: its gRPC and metrics addresses. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, launch: CliLaunch = {}): Promise<{ child: ChildProcess; grpc: string; metrics: string; output: () => string }> {
  const child = spawnCli(args, env, launch);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"grpc":"([^"]+)","metrics":"([^"]+)"/.exec(out);
      if (match) resolve({ child, grpc: match[1]!, metrics: match[2]!, output: () => out });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code, signal) => reject(new Error(`the coordinator exited (${code ?? signal}) before listening:\n${out}`)));
  });
}

/**
 * For a suite: a temporary directory (named `prefix` and a random suffix) holding `yaml` as
 * factories.yaml, and a list of clean-ups (processes to kill, clients to close), run last first
 * after the suite, before the directory goes.
 */
export function suiteDirectory(prefix: string, yaml: string): { readonly dir: string; readonly cleanup: (() => void)[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'factories.yaml'), yaml);
  const cleanup: (() => void)[] = [];
  afterAll(() => {
    for (const fn of cleanup.reverse()) fn();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, cleanup };
}
