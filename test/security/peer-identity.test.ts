import { describe, expect, it } from 'vitest';
import type { PeerCertificate } from 'node:tls';
import { certificateNames, parseSubjectAltName, serverIdentity } from '../../src/security/credentials/peer-identity.js';

describe('certificate names', () => {
  it("parses Node's subjectaltname, quoted names included", () => {
    expect(parseSubjectAltName('DNS:a.example, URI:spiffe://s/gs/eu-1, IP Address:127.0.0.1, DNS:"x, y"')).toEqual([
      { type: 'DNS', value: 'a.example' },
      { type: 'URI', value: 'spiffe://s/gs/eu-1' },
      { type: 'IP Address', value: '127.0.0.1' },
      { type: 'DNS', value: 'x, y' },
    ]);
    expect(parseSubjectAltName('')).toEqual([]);
  });

  it('gives nothing without a verified TLS peer certificate', () => {
    expect(certificateNames(null)).toBeUndefined();
    expect(certificateNames({})).toBeUndefined();
  });

  it('picks the server id by the configured rule', () => {
    const cert = { subject: { CN: 'eu-1' }, subjectaltname: 'DNS:eu-1.games.test, URI:spiffe://s/gs/eu-1-u, URI:https://other' } as unknown as PeerCertificate;
    const names = certificateNames({ transportSecurityType: 'ssl', sslPeerCertificate: cert })!;
    expect(serverIdentity(names, { from: 'commonName', uriPrefix: '' })).toBe('eu-1');
    expect(serverIdentity(names, { from: 'dnsSan', uriPrefix: '' })).toBe('eu-1.games.test');
    expect(serverIdentity(names, { from: 'uriSan', uriPrefix: 'spiffe://s/gs/' })).toBe('eu-1-u');
    expect(serverIdentity(names, { from: 'uriSan', uriPrefix: 'spiffe://elsewhere/' })).toBeUndefined();
  });
});
