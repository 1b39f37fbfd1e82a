import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from './cli-process.js';

/**
 * Preloaded into the command's process: says on stderr when a SIGTERM listener is added, and
 * whether the commands (commander) were loaded by then. Node catches SIGTERM natively from its
 * start, so /proc's SigCgt cannot tell when JavaScript does.
 */
const WATCH = `
const on = process.on;
process.on = function (event, listener) {
  const result = on.apply(this, arguments);
  if (event === 'SIGTERM') {
    const loaded = Object.keys(require.cache).some((path) => path.includes('/node_modules/commander/'));
    process.stderr.write('[sigterm listener, commands loaded: ' + loaded + ']\\n');
  }
  return result;
};
`;

describe('a signal while the command loads', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is held from before the commands load, and exits 0 before starting anything', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gf early signal '));
    const watch = join(dir, 'watch.cjs');
    writeFileSync(watch, WATCH);
    // The compiled command as installed (tsx's loader takes the signals itself from the start).
    const child = spawnCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--data', join(dir, 'data.d')], {}, { compiled: true, nodeArgs: ['--require', watch] });
    let output = '';
    let signalled = false;
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // At the first listener: the window in which the default action ended the process by the signal.
      if (!signalled && output.includes('[sigterm listener')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    expect(output).toMatch(/^\[sigterm listener, commands loaded: false\]/m);
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(output).toContain('signal before starting: exiting');
    expect(output).not.toContain('"grpc":');
  }, 20_000);
});
