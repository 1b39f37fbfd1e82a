import { Metadata, status } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, SecureProcess } from './secure-process.js';

/** A Connect call with JSON over HTTPS (the coordinator's certificate, trusted through the test CA). */
function post(p: SecureProcess, method: string, body: unknown, authorization?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: 'localhost',
        port: p.running.httpPort,
        method: 'POST',
        path: `/gamefactory.v1.Matchmaker/${method}`,
        ca: readFileSync(p.ca.certFile),
        headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const CODES: Record<string, number> = { unauthenticated: status.UNAUTHENTICATED, permission_denied: status.PERMISSION_DENIED, resource_exhausted: status.RESOURCE_EXHAUSTED, not_found: status.NOT_FOUND };
const asStatus = (answer: { body: string }) => {
  const error = JSON.parse(answer.body) as { code: string; message: string };
  return { code: CODES[error.code] ?? -1, details: error.message };
};
const authorization = (metadata: Metadata) => metadata.get('authorization')[0] as string | undefined;

/** The HTTP gateway of a coordinator with TLS, tokens, roles and per-peer limits: HTTPS, and the gRPC answers. */
describe('the HTTP gateway behind security.tls, security.tokens and limits', () => {
  let p: SecureProcess;
  beforeAll(async () => {
    p = await SecureProcess.start(`limits:
  rate: { findGame: { perSecond: 5, burst: 6 } }`, { httpListen: '127.0.0.1:0' });
    await p.gameServer(p.certs['eu-1'], 'eu-1').welcomed;
  });
  afterAll(() => p?.stop());

  it('is HTTPS with the coordinator\'s certificate; no token, another player\'s ticket: refused with gRPC\'s code and message', async () => {
    const nobody = await post(p, 'CancelFind', { ticketId: 'x' });
    expect(asStatus(nobody)).toEqual(await p.cancel(new Metadata(), 'x'));
    expect(nobody.status).toBe(401);

    const alice = await bearer({ sub: 'alice', role: 'player' });
    const bob = await bearer({ sub: 'bob', role: 'player' });
    const waiting = p.find(alice, 'alice-ticket', ['alice']);
    await waiting.waiting;
    const overGrpc = await p.cancel(bob, 'alice-ticket');
    expect(overGrpc.code).toBe(status.PERMISSION_DENIED);
    const overHttp = await post(p, 'CancelFind', { ticketId: 'alice-ticket' }, authorization(bob));
    expect(asStatus(overHttp)).toEqual({ code: overGrpc.code, details: overGrpc.details });
    // Alice's own token cancels it, over HTTP as over gRPC.
    const own = await post(p, 'CancelFind', { ticketId: 'alice-ticket' }, authorization(alice));
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toEqual({ cancelled: true });
    expect((await waiting.result).code).toBe(status.CANCELLED);
  });

  it('per-peer rate limits count HTTP calls as gRPC ones: the burst beyond 6 refused RESOURCE_EXHAUSTED with a retry hint', async () => {
    const rater = authorization(await bearer({ sub: 'http-rater', role: 'player' }));
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(p, 'FindGame', { ticketId: `h-${i}`, template: 'nope', party: [{ playerId: 'http-rater' }] }, rater)));
    const seconds = (Date.now() - started) / 1000;
    const refused = answers.filter((a) => a.status === 429);
    const passed = answers.filter((a) => a.status === 404);
    expect(passed.length + refused.length).toBe(20);
    // The bucket holds 6 and refills 5/s: however slowly a busy machine sent them, no more passed.
    expect(passed.length).toBeLessThanOrEqual(6 + Math.ceil(5 * seconds));
    expect(refused.length).toBeGreaterThan(0);
    expect(asStatus(refused[0]!).details).toMatch(/^limit rate\.findGame: 5\/s per peer \(burst 6\) exceeded; retry in \d+ ms$/);
    // A JSON-lines call refused before its first reply has its trailing metadata as headers.
    expect(Number(refused[0]!.headers['retry-after-ms'])).toBeGreaterThan(0);
  });
});
