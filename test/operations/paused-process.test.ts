import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameServerConnection } from '../support/game-server-connection.js';
import { startCli } from './cli-process.js';

/**
 * A coordinator that was itself paused (SIGSTOP then SIGCONT, a VM paused, a long stall) must
 * not blame its game servers for the silence. On SIGCONT its keepalive check ran before it read
 * the acknowledgements waiting in its sockets, found every server "silent for 3 intervals" and
 * ended every link with UNAVAILABLE (`game server missed its keepalives`).
 */
const KEEPALIVE_MS = 300;
const YAML = `
servers: { keepaliveIntervalMs: ${KEEPALIVE_MS} }
factories:
  - name: solo
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 1 }
`;

describe('a coordinator paused with SIGSTOP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-paused-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the links of game servers that answered every keepalive once it runs again; a silent one is still dropped', async () => {
    writeFileSync(join(dir, 'factories.yaml'), YAML);
    const cli = await startCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data')]);
    const healthy = new GameServerConnection(cli.grpc, { serverId: 'healthy', endpoint: 'healthy:1', maxGames: 4 });
    const silent = new GameServerConnection(cli.grpc, { serverId: 'silent', endpoint: 'silent:1', maxGames: 4 }, { answerKeepalive: false });
    try {
      await healthy.connect();
      await silent.connect();
      cli.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, KEEPALIVE_MS * 8));
      cli.child.kill('SIGCONT');
      // Several keepalive intervals of the coordinator running again.
      await new Promise((r) => setTimeout(r, KEEPALIVE_MS * 6));
      expect(healthy.ended, cli.output()).toBeUndefined();
      expect(silent.ended?.details).toBe('no message from the server for 3 keepalive intervals');
    } finally {
      healthy.close();
      silent.close();
      cli.child.kill('SIGKILL');
    }
  });
});
