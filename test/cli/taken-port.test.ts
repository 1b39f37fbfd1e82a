import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** Runs `gamefactory start` to its exit: its code and everything it printed. */
function start(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start', '--insecure', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** A port taken by another process names the flag that chose it, and the start exits 2 without a stack trace. */
describe('gamefactory start on a taken port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-port-'));
  let taken: Server;
  let port = 0;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--listen', async () => {
    const run = await start(['--listen', `127.0.0.1:${port}`, '--metrics-listen', '127.0.0.1:0', '--data', join(dir, 'a')]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(`--listen 127.0.0.1:${port}: the address is in use (another process listens there); give another with --listen HOST:PORT`);
    expect(run.output).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('--metrics-listen', async () => {
    const run = await start(['--listen', '127.0.0.1:0', '--metrics-listen', `127.0.0.1:${port}`, '--data', join(dir, 'b')]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(`--metrics-listen 127.0.0.1:${port}: the address is in use (another process listens there); give another with --metrics-listen HOST:PORT`);
    expect(run.output).not.toMatch(/\n\s+at /);
  }, 60_000);
});
