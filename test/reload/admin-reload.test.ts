import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReloadConfigResponse } from '../../src/generated/gamefactory/v1/admin.js';
import { bearer, SecureProcess } from '../security/secure-process.js';

const DUEL = `  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
`;

/**
 * Admin.ReloadConfig over gRPC on the real process with TLS and tokens: admins only, a valid file
 * applied, an invalid one refused with the errors `gamefactory check` prints, a change that cannot
 * apply live refused with every reason; each outcome counted in /metrics.
 */
describe('Admin.ReloadConfig', () => {
  let p: SecureProcess;
  let original: string;
  beforeAll(async () => {
    p = await SecureProcess.start();
    original = readFileSync(p.configPath, 'utf8');
    await p.gameServer(p.certs['eu-1'], 'eu-1').welcomed;
  });
  afterAll(() => p.stop());

  const reload = (metadata: Metadata) =>
    new Promise<{ code: number; details: string; response?: ReloadConfigResponse }>((resolve) =>
      p.admin().reloadConfig({}, metadata, (e: ServiceError | null, response?: ReloadConfigResponse) =>
        resolve(e ? { code: e.code, details: e.details } : { code: status.OK, details: '', response }),
      ),
    );
  const reloads = async (outcome: string) => {
    const line = (await p.metricsText()).split('\n').find((l) => l.startsWith(`gamefactory_config_reloads_total{outcome="${outcome}"}`));
    return Number(line?.split(' ').pop());
  };

  it('is for admins only', async () => {
    expect((await reload(new Metadata())).code).toBe(status.UNAUTHENTICATED);
    for (const role of ['player', 'gateway']) {
      const answer = await reload(await bearer({ sub: 'x', role }));
      expect(answer.code).toBe(status.PERMISSION_DENIED);
      expect(answer.details).toBe(`ReloadConfig: role ${role} may not call it (allowed: admin)`);
    }
    expect(await reloads('unchanged')).toBe(0);
  });

  it('applies an added template at once: the connected server serves it', async () => {
    const admin = await bearer({ sub: 'ops', role: 'admin' });
    expect((await reload(admin)).response).toEqual({ path: p.configPath, changes: [] });
    writeFileSync(p.configPath, original + DUEL);
    expect((await reload(admin)).response).toEqual({ path: p.configPath, changes: ['template "duel" added'] });
    expect(p.running.coordinator.view.servers()[0]?.factories).toEqual(['coop/region=eu', 'duel']);
    expect([await reloads('unchanged'), await reloads('applied')]).toEqual([1, 1]);
  });

  it('refuses an invalid file with the errors `gamefactory check` prints, and changes nothing', async () => {
    const broken = original.replace('maxPlayers: 4', 'maxPlayers: 0') + DUEL.replace('teams: 2', 'teams: many');
    writeFileSync(p.configPath, broken);
    const answer = await reload(await bearer({ sub: 'ops', role: 'admin' }));
    expect(answer.code).toBe(status.INVALID_ARGUMENT);
    const check: { stderr: string; code?: number } = await promisify(execFile)(process.execPath, [
      join(process.cwd(), 'dist/src/cli/main.js'),
      'check',
      p.configPath,
      '--no-preview',
    ]).catch((e: { stderr: string; code: number }) => e);
    expect(check.code).toBe(1);
    expect(answer.details).toBe(check.stderr.trimEnd());
    expect(answer.details).toContain('at factories[0].cooperative.maxPlayers');
    expect(answer.details).toContain('at factories[1].competitive.teams');
    expect(p.running.coordinator.view.factoryNames().sort()).toEqual(['coop/region=eu', 'duel']);
    expect(await reloads('invalid')).toBe(1);
    expect((await p.metricsText()).split('\n')).toContain('gamefactory_config_last_reload_successful 0');
  });

  it('refuses a change that cannot apply live, naming each setting, and keeps the running configuration', async () => {
    writeFileSync(p.configPath, original.replace('maxPlayers: 4', 'maxPlayers: 6').replace('ticketTtlSeconds: 120', 'ticketTtlSeconds: 30') + DUEL);
    const answer = await reload(await bearer({ sub: 'ops', role: 'admin' }));
    expect(answer.code).toBe(status.FAILED_PRECONDITION);
    expect(answer.details.split('\n')).toEqual([
      `${p.configPath}: cannot apply while running; the running configuration is unchanged:`,
      expect.stringMatching(/^ {2}factories\[coop\]\.cooperative\.maxPlayers: cannot change while 1 of its factories is live \(coop\/region=eu: /),
    ]);
    expect(await reloads('refused')).toBe(1);
    // Put back as it runs: nothing to change.
    writeFileSync(p.configPath, original + DUEL);
    expect((await reload(await bearer({ sub: 'ops', role: 'admin' }))).response?.changes).toEqual([]);
    expect((await p.metricsText()).split('\n')).toContain('gamefactory_config_last_reload_successful 1');
  });
});
