import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCoordinatorProcess } from '../../src/app/coordinator-process.js';
import { metricsAddress } from '../../src/cli/metrics-address.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { decideBind, TOKENS_WITHOUT_TLS } from '../../src/security/dev-mode.js';
import { JwtTokenVerifier } from '../../src/security/tokens/jwt-verifier.js';
import { runCli, startCli } from '../operations/cli-process.js';
import { AUDIENCE, ISSUER, SECRET } from './tokens.js';
import { token } from './secure-process.js';

const FACTORIES = `
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;
const TOKENS_ONLY = `security:\n  tokens: { issuer: ${ISSUER}, audience: ${AUDIENCE}, hmacSecretEnv: GAMEFACTORY_TEST_JWT_SECRET }\n${FACTORIES}`;

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-defaults-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('security.tokens without security.tls is refused at start', () => {
  it('by the bind decision, naming both settings and the ways out', () => {
    for (const insecure of [true, false]) {
      expect(decideBind({ host: '127.0.0.1', tls: false, tokens: true, insecure, allowInsecureBind: false })).toEqual({ kind: 'refuse', reason: TOKENS_WITHOUT_TLS });
    }
    expect(TOKENS_WITHOUT_TLS).toMatch(/^security\.tokens is configured without security\.tls: .* Configure security\.tls too, or remove security\.tokens/);
    expect(decideBind({ host: '0.0.0.0', tls: true, tokens: true, insecure: false, allowInsecureBind: false })).toEqual({ kind: 'secure' });
  });

  it('by an embedded process, before it opens anything', async () => {
    const dir = tempDir();
    const start = startCoordinatorProcess({ config: parseConfig(TOKENS_ONLY, 'f.yaml'), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir: join(dir, 'data'), log: silentLog });
    await expect(start).rejects.toMatchObject({ name: 'SecuritySetupError', message: TOKENS_WITHOUT_TLS });
  });

  it('by the CLI: exit code 2 and the reason, even with --insecure', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'factories.yaml'), TOKENS_ONLY);
    for (const extra of [[], ['--insecure']]) {
      const exit = await runCli(['start', ...extra, '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0', '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data')], {
        GAMEFACTORY_TEST_JWT_SECRET: SECRET,
      });
      expect(exit.code).toBe(2);
      expect(exit.output).toContain('security.tokens is configured without security.tls');
      expect(exit.output).not.toContain('listening');
    }
  });
});

describe('the metrics port binds where gRPC binds', () => {
  it('defaults to the --listen host, port 9464; a port alone goes on that host', () => {
    expect(metricsAddress('127.0.0.1:50051', undefined)).toBe('127.0.0.1:9464');
    expect(metricsAddress('[::1]:50051', undefined)).toBe('[::1]:9464');
    expect(metricsAddress('0.0.0.0:50051', undefined)).toBe('0.0.0.0:9464');
    expect(metricsAddress('127.0.0.1:50051', ':0')).toBe('127.0.0.1:0');
    expect(metricsAddress('127.0.0.1:50051', '9000')).toBe('127.0.0.1:9000');
    expect(metricsAddress('127.0.0.1:50051', '10.0.0.5:9464')).toBe('10.0.0.5:9464');
  });

  it('npm start (loopback gRPC) serves /metrics and the operator page on loopback', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'factories.yaml'), FACTORIES);
    const cli = await startCli(['start', '--insecure', '--listen', '127.0.0.1:0', '--metrics-listen', ':0', '--config', join(dir, 'factories.yaml'), '--data', join(dir, 'data')]);
    try {
      expect(cli.metrics).toMatch(/^127\.0\.0\.1:\d+$/);
      expect((await fetch(`http://${cli.metrics}/metrics`)).status).toBe(200);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('with security on and no TLS (an embedder), the operator page refuses an admin token sent over plain HTTP', async () => {
    const dir = tempDir();
    const running = await startCoordinatorProcess({
      config: parseConfig(FACTORIES, 'f.yaml'),
      listen: '127.0.0.1:0',
      metricsListen: '127.0.0.1:0',
      dataDir: join(dir, 'data'),
      log: silentLog,
      security: { insecure: false, tokens: new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, hmacSecret: SECRET }) },
    });
    try {
      const answer = await fetch(`http://127.0.0.1:${running.metricsPort}/api/overview`, { headers: { authorization: `Bearer ${await token({ sub: 'ops', role: 'admin' })}` } });
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain('over HTTPS only');
      expect((await fetch(`http://127.0.0.1:${running.metricsPort}/metrics`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });
});
