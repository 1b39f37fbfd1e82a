import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

const factories = `
factories:
  - name: coop
    cooperative: { maxPlayers: 4 }
`;

describe('security: and limits: in factories.yaml', () => {
  it('defaults to no TLS, no tokens and the documented limits', () => {
    const config = parseConfig(factories);
    expect(config.security).toEqual({});
    expect(config.limits?.maxStreamsPerPeer).toBe(32);
  });

  it('reads TLS with mTLS and tokens', () => {
    const config = parseConfig(`
security:
  tls: { certFile: c.pem, keyFile: k.pem, caFile: ca.pem, serverIdentity: { from: uriSan, uriPrefix: "spiffe://s/gs/" } }
  tokens: { issuer: https://auth.test, audience: gamefactory, hmacSecretEnv: GAMEFACTORY_JWT_SECRET }
limits: { maxStreamsPerPeer: 8, rate: { findGame: { perSecond: 2 } } }
${factories}`);
    expect(config.security?.tls).toMatchObject({ clientCertificates: 'request', reloadIntervalMs: 10_000, serverIdentity: { from: 'uriSan', uriPrefix: 'spiffe://s/gs/' } });
    expect(config.security?.tokens?.clockToleranceSeconds).toBe(30);
    expect(config.limits?.rate.findGame).toEqual({ perSecond: 2, burst: 20 });
  });

  it('names the field when mTLS has no CA or tokens have no key', () => {
    expect(() => parseConfig(`security: { tls: { certFile: c, keyFile: k } }\n${factories}`)).toThrow(/security.tls.caFile/);
    expect(() => parseConfig(`security: { tokens: { issuer: i, audience: a } }\n${factories}`)).toThrow(ConfigError);
    expect(() => parseConfig(`limits: { maxStreamsPerPeer: 0 }\n${factories}`)).toThrow(/limits.maxStreamsPerPeer/);
  });
});
