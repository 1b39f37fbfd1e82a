import { exportSPKI, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { SecurityError } from '../../src/security/errors.js';
import { JwtTokenVerifier } from '../../src/security/tokens/jwt-verifier.js';
import { mergePlayerPrincipals } from '../../src/security/tokens/principal.js';
import { bearerTokens } from '../../src/security/tokens/token-verifier.js';
import { AUDIENCE, ISSUER, mint, NOW, SECRET } from './tokens.js';

const hmac = (now = NOW) => new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, hmacSecret: SECRET, now: () => now });

async function refusal(promise: Promise<unknown>): Promise<SecurityError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecurityError);
  expect((error as SecurityError).code).toBe('UNAUTHENTICATED');
  return error as SecurityError;
}

describe('JwtTokenVerifier', () => {
  it('turns an HMAC player token into a player principal for its own id by default', async () => {
    const principal = await hmac().verify(await mint({ sub: 'alice', role: 'player' }));
    expect(principal).toEqual({ role: 'player', subject: 'alice', playerIds: ['alice'] });
  });

  it('keeps player_ids and a party claim', async () => {
    const token = await mint({ sub: 'alice', role: 'player', player_ids: ['alice', 'alice-alt'], party: { id: 'p1', members: ['alice', 'bob'] } });
    expect(await hmac().verify(token)).toEqual({
      role: 'player',
      subject: 'alice',
      playerIds: ['alice', 'alice-alt'],
      partyClaim: { partyId: 'p1', members: ['alice', 'bob'] },
    });
  });

  it('verifies public-key tokens (ES256) against a PEM key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const verifier = new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeyPem: await exportSPKI(publicKey), now: () => NOW });
    expect(await verifier.verify(await mint({ sub: 'gw-1', role: 'gateway' }, privateKey, { alg: 'ES256' }))).toEqual({ role: 'gateway', subject: 'gw-1' });
    const other = await generateKeyPair('ES256');
    const error = await refusal(verifier.verify(await mint({ sub: 'gw-1', role: 'gateway' }, other.privateKey, { alg: 'ES256' })));
    expect(error.message).toMatch(/signature/);
    // An HS256 token is refused when only a public key is configured (no alg confusion).
    expect((await refusal(verifier.verify(await mint({ sub: 'x', role: 'admin' })))).message).toMatch(/alg|HMAC/);
  });

  it('refuses expired tokens, naming exp', async () => {
    const token = await mint({ sub: 'alice', role: 'player' }, undefined, { expiresIn: 60 });
    expect((await refusal(hmac(NOW + 60_000 + 31_000).verify(token))).message).toMatch(/"exp"/);
    expect(await hmac(NOW + 60_000).verify(token)).toMatchObject({ subject: 'alice' }); // within the 30 s tolerance
  });

  it('refuses a wrong audience or issuer, naming the claim', async () => {
    expect((await refusal(hmac().verify(await mint({ sub: 'a', role: 'player' }, undefined, { audience: 'other' })))).message).toMatch(/"aud"/);
    expect((await refusal(hmac().verify(await mint({ sub: 'a', role: 'player' }, undefined, { issuer: 'evil' })))).message).toMatch(/"iss"/);
  });

  it('refuses a wrong secret, garbage, a missing or unknown role, and game-server tokens', async () => {
    await refusal(hmac().verify(await mint({ sub: 'a', role: 'player' }, new TextEncoder().encode('another-secret-of-at-least-32-bytes'))));
    await refusal(hmac().verify('not.a.jwt'));
    await refusal(hmac().verify('x'.repeat(10_000)));
    expect((await refusal(hmac().verify(await mint({ sub: 'a' })))).message).toMatch(/"role"/);
    expect((await refusal(hmac().verify(await mint({ sub: 'a', role: 'root' })))).message).toMatch(/"role"/);
    expect((await refusal(hmac().verify(await mint({ sub: 's1', role: 'gameServer' })))).message).toMatch(/"role"/);
    expect((await refusal(hmac().verify(await mint({ sub: 'a', role: 'player', player_ids: 'a' })))).message).toMatch(/player_ids/);
  });

  it('refuses a short HMAC secret and a verifier with no key at construction', () => {
    expect(() => new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, hmacSecret: 'short' })).toThrow(/32 bytes/);
    expect(() => new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/hmacSecret, publicKeyPem or jwks/);
  });
});

describe('bearer tokens and party merging', () => {
  it('reads every Bearer value and ignores other schemes', () => {
    expect(bearerTokens(['Bearer a.b.c', 'bearer  d.e.f ', 'Basic xyz'])).toEqual(['a.b.c', 'd.e.f']);
  });

  it('merges one token per member into one player principal, and refuses to merge other roles', () => {
    const merged = mergePlayerPrincipals([
      { role: 'player', subject: 'alice', playerIds: ['alice'] },
      { role: 'player', subject: 'bob', playerIds: ['bob'], partyClaim: { partyId: 'p', members: ['carol'] } },
    ]);
    expect(merged).toEqual({ role: 'player', subject: 'alice', playerIds: ['alice', 'bob', 'carol'] });
    expect(mergePlayerPrincipals([{ role: 'player', subject: 'a' }, { role: 'gateway', subject: 'g' }])).toBeUndefined();
  });
});
