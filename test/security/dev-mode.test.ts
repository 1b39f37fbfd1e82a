import { describe, expect, it } from 'vitest';
import { decideBind, isLoopback } from '../../src/security/dev-mode.js';

const plan = (host: string, over: { tls?: boolean; insecure?: boolean; allowInsecureBind?: boolean } = {}) =>
  decideBind({ host, tls: false, insecure: false, allowInsecureBind: false, ...over });

describe('start-up bind check', () => {
  it('runs insecure on loopback with a clear warning', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3', '::ffff:127.0.0.1']) {
      const decision = plan(host, { insecure: true });
      expect(decision.kind, host).toBe('insecure');
      expect(decision.kind === 'insecure' && decision.warning).toMatch(/^INSECURE development mode/);
    }
  });

  it('refuses a reachable address without credentials, naming the ways out', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'coordinator.internal']) {
      const decision = plan(host, { insecure: true });
      expect(decision).toEqual({ kind: 'refuse', reason: expect.stringMatching(/^refusing to listen on .* without credentials: configure security.tls, listen on 127.0.0.1, or pass --allow-insecure-bind/) });
    }
  });

  it('binds a reachable address in plaintext only when forced, and says so', () => {
    const decision = plan('0.0.0.0', { allowInsecureBind: true });
    expect(decision.kind).toBe('insecure');
    expect(decision.kind === 'insecure' && decision.warning).toMatch(/reachable from other machines \(--allow-insecure-bind\)/);
  });

  it('is secure with TLS anywhere, and refuses TLS together with --insecure', () => {
    expect(plan('0.0.0.0', { tls: true })).toEqual({ kind: 'secure' });
    expect(plan('127.0.0.1', { tls: true, insecure: true }).kind).toBe('refuse');
  });

  it('does not mistake look-alikes for loopback', () => {
    expect(isLoopback('127.0.0.1.evil.test')).toBe(false);
    expect(isLoopback('::2')).toBe(false);
    expect(isLoopback('0:0:0:0:0:0:0:1')).toBe(true);
  });
});
