import { Client, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, SecureProcess, token, until } from './secure-process.js';

/**
 * Issue 14 on the real coordinator process: TLS and mTLS from factories.yaml, roles for every
 * method, ticket ownership in the core, the operator page behind the admin role, Admin.Drain.
 */
describe('a coordinator started with security.tls and security.tokens', () => {
  let p: SecureProcess;
  let real: ReturnType<SecureProcess['gameServer']>;
  beforeAll(async () => {
    p = await SecureProcess.start();
    real = p.gameServer(p.certs['eu-1'], 'eu-1');
    await real.welcomed;
  });
  afterAll(() => p.stop());

  it('refuses a forged hello (another server id than its certificate) while the real server keeps its stream', async () => {
    const forged = p.gameServer(p.certs['eu-2'], 'eu-1');
    const error = (await forged.welcomed.catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.PERMISSION_DENIED);
    expect(error.details).toBe(`hello.server_id: "eu-1" is not the certificate's identity "eu-2"`);
    expect(real.ended()).toBeUndefined();
    // A ticket still reaches eu-1: it waits on a creation sent to it (the server never confirms).
    const alice = p.find(await bearer({ sub: 'alice', role: 'player' }), 'forged-check', ['alice']);
    await alice.waiting;
    alice.call.cancel();
  });

  it('a player token cannot cancel or resume another player\'s ticket; its owner can', async () => {
    const alice = await bearer({ sub: 'alice', role: 'player' });
    const bob = await bearer({ sub: 'bob', role: 'player' });
    const waiting = p.find(alice, 'alice-ticket', ['alice']);
    await waiting.waiting;
    const byBob = await p.cancel(bob, 'alice-ticket');
    expect(byBob.code).toBe(status.PERMISSION_DENIED);
    expect(byBob.details).toContain('only its owner may cancel it');
    // Over FindGames too: the cancel is refused as that ticket's error, the stream goes on.
    const stream = p.findGames(bob);
    stream.cancel('alice-ticket');
    await until(() => stream.updates.length > 0);
    expect(stream.updates[0]).toMatchObject({ ticketId: 'alice-ticket', update: { $case: 'error', value: { code: status.PERMISSION_DENIED } } });
    // Bob cannot even ask for alice's party (the role table), so he cannot resume it either.
    expect((await p.find(bob, 'alice-ticket', ['alice']).result).code).toBe(status.PERMISSION_DENIED);
    expect(await p.cancel(alice, 'alice-ticket')).toMatchObject({ code: status.OK, cancelled: true });
    expect((await waiting.result).code).toBe(status.CANCELLED);
    stream.call.end();
  });

  it('a gateway may cancel any player\'s ticket', async () => {
    const waiting = p.find(await bearer({ sub: 'carol', role: 'player' }), 'carol-ticket', ['carol']);
    await waiting.waiting;
    expect(await p.cancel(await bearer({ sub: 'gw', role: 'gateway' }), 'carol-ticket')).toMatchObject({ code: status.OK, cancelled: true });
  });

  it('roles for every method: stats and drain for admins only, finds not for admins, no token: UNAUTHENTICATED', async () => {
    const player = await bearer({ sub: 'dave', role: 'player' });
    const stats = (m: Metadata) =>
      new Promise<number>((resolve) => p.matchmaker().queryStats({ factory: '', template: 'coop', partitionAttributes: {}, predicates: [], mode: 0 }, m, (e) => resolve(e ? e.code : status.OK)));
    expect(await stats(player)).toBe(status.PERMISSION_DENIED);
    expect(await stats(await bearer({ sub: 'ops', role: 'admin' }))).toBe(status.OK);
    expect(await stats(new Metadata())).toBe(status.UNAUTHENTICATED);
    expect((await p.find(await bearer({ sub: 'ops', role: 'admin' }), 'ops-find', ['ops']).result).code).toBe(status.PERMISSION_DENIED);
    const drain = (m: Metadata) => new Promise<number>((resolve) => p.admin().drain({ reason: 'test' }, m, (e) => resolve(e ? e.code : status.OK)));
    expect(await drain(player)).toBe(status.PERMISSION_DENIED);
    expect(await drain(await bearer({ sub: 'gw', role: 'gateway' }))).toBe(status.PERMISSION_DENIED);
  });

  it('server reflection: no token UNAUTHENTICATED (as every method), a player PERMISSION_DENIED, an admin served', async () => {
    const client = new Client(p.address, p.tls());
    const reflect = (m: Metadata) =>
      new Promise<number>((resolve) => {
        const call = client.makeBidiStreamRequest('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', (b: Buffer) => b, (b: Buffer) => b, m);
        call.on('data', () => {
          resolve(status.OK);
          call.cancel();
        });
        call.on('error', (e: ServiceError) => resolve(e.code));
        call.write(Buffer.from([0x3a, 0x00])); // list_services: ""
      });
    try {
      expect(await reflect(new Metadata())).toBe(status.UNAUTHENTICATED);
      expect(await reflect(await bearer({ sub: 'dave', role: 'player' }))).toBe(status.PERMISSION_DENIED);
      expect(await reflect(await bearer({ sub: 'ops', role: 'admin' }))).toBe(status.OK);
    } finally {
      client.close();
    }
  });

  it('puts the operator page behind the admin role over HTTPS only, and leaves /metrics open', async () => {
    const none = await p.metricsGet('/api/overview');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain('Basic');
    expect((await p.metricsGet('/', { authorization: `Bearer ${await token({ sub: 'eve', role: 'player' })}` })).status).toBe(403);
    expect((await p.metricsGet('/', { authorization: `Bearer ${await token({ sub: 'ops', role: 'admin' })}` })).status).toBe(200);
    const basic = Buffer.from(`ops:${await token({ sub: 'ops', role: 'admin' })}`).toString('base64');
    expect((await p.metricsGet('/api/overview', { authorization: `Basic ${basic}` })).status).toBe(200);
    expect((await p.metricsGet('/metrics')).status).toBe(200);
    // The port speaks TLS only: an admin token cannot be sent to it in plaintext.
    await expect(fetch(`http://127.0.0.1:${p.running.metricsPort}/`, { headers: { authorization: `Bearer ${await token({ sub: 'ops', role: 'admin' })}` } })).rejects.toThrow();
  });

  it('Admin.Drain: answered, then waiting clients and servers get UNAVAILABLE with a retry hint, new calls are refused', async () => {
    const waiting = p.find(await bearer({ sub: 'frank', role: 'player' }), 'frank-ticket', ['frank']);
    await waiting.waiting;
    const admin = await bearer({ sub: 'ops', role: 'admin' });
    const answer = await new Promise<{ graceMs: number }>((resolve, reject) => p.admin().drain({ reason: 'test' }, admin, (e, r) => (e ? reject(e) : resolve(r!))));
    expect(answer.graceMs).toBe(1000);
    const ended = await waiting.result;
    expect(ended.code).toBe(status.UNAVAILABLE);
    expect(Number(ended.retryAfter)).toBeGreaterThan(0);
    const serverEnd = await real.endedPromise;
    expect(serverEnd.code).toBe(status.UNAVAILABLE);
  });
});
