import {
  credentials,
  makeGenericClientConstructor,
  Server,
  status,
  type ChannelCredentials,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gameServerPrincipal, type AuthContext } from '../../src/security/credentials/peer-identity.js';
import { checkFiles, CredentialsError, tlsServerCredentials } from '../../src/security/credentials/tls-credentials.js';
import type { TlsSettings } from '../../src/security/security-config.js';
import { issue, makeCa, type KeyPairFiles } from './certs.js';

/** A one-method service that answers with the game-server identity its caller's certificate proves. */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value ?? null)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const whoAmI: ServiceDefinition = {
  whoAmI: {
    path: '/test.Identity/WhoAmI',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const IdentityClient = makeGenericClientConstructor(whoAmI, 'Identity');

let dir: string;
let ca: KeyPairFiles;
let otherCa: KeyPairFiles;
let serverA: KeyPairFiles;
let serverB: KeyPairFiles;
let gameServer: KeyPairFiles;
let impostor: KeyPairFiles;
let live: KeyPairFiles; // the files the running server reads

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gamefactory-tls-'));
  ca = makeCa(dir, 'ca');
  otherCa = makeCa(dir, 'other-ca');
  serverA = issue(dir, ca, 'coordinator-a', { commonName: 'coordinator-a', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  serverB = issue(dir, ca, 'coordinator-b', { commonName: 'coordinator-b', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  gameServer = issue(dir, ca, 'eu-1', { commonName: 'eu-1', uris: ['spiffe://studio.test/gameserver/eu-1-uri'] });
  impostor = issue(dir, otherCa, 'impostor', { commonName: 'eu-1' });
  live = { certFile: join(dir, 'live.crt'), keyFile: join(dir, 'live.key') };
  copyFileSync(serverA.certFile, live.certFile);
  copyFileSync(serverA.keyFile, live.keyFile);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startServer(tls: TlsSettings): Promise<{ port: number; close: () => Promise<void> }> {
  const server = new Server();
  server.addService(whoAmI, {
    whoAmI: (call: { getAuthContext(): AuthContext | null }, callback: (e: null, v: unknown) => void) => {
      const principal = gameServerPrincipal(call.getAuthContext(), tls.serverIdentity);
      callback(null, { principal: principal ?? null });
    },
  });
  const creds = await tlsServerCredentials(tls);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { port, close: () => new Promise((resolve) => server.tryShutdown(() => resolve())) };
}

function settings(over: Partial<TlsSettings> = {}): TlsSettings {
  return {
    certFile: live.certFile,
    keyFile: live.keyFile,
    caFile: ca.certFile,
    clientCertificates: 'require',
    reloadIntervalMs: 100,
    serverIdentity: { from: 'commonName', uriPrefix: '' },
    ...over,
  };
}

/** One fresh connection; records the certificate the coordinator presented. */
async function call(port: number, client?: KeyPairFiles): Promise<{ result?: unknown; error?: ServiceError; serverCn?: string }> {
  let serverCn: string | undefined;
  const creds: ChannelCredentials = credentials.createSsl(
    readFileSync(ca.certFile),
    client ? readFileSync(client.keyFile) : null,
    client ? readFileSync(client.certFile) : null,
    {
      checkServerIdentity: (_host: string, cert: PeerCertificate) => {
        serverCn = cert.subject.CN as string;
        return undefined;
      },
    },
  );
  const stub = new IdentityClient(`localhost:${port}`, creds);
  try {
    const result = await new Promise<unknown>((resolve, reject) =>
      (stub as unknown as Record<string, (req: unknown, opts: object, cb: (e: ServiceError | null, v: unknown) => void) => void>)
        .whoAmI!({}, { deadline: Date.now() + 5000 }, (e, v) => (e ? reject(e) : resolve(v))),
    );
    return { result: (result as { principal: unknown }).principal, serverCn };
  } catch (error) {
    return { error: error as ServiceError, serverCn };
  } finally {
    stub.close();
  }
}

describe('mTLS for game servers (clientCertificates: require)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer(settings());
  });
  afterAll(() => server.close());

  it("accepts a certificate from our CA and extracts the server id from it", async () => {
    const { result, error } = await call(server.port, gameServer);
    expect(error).toBeUndefined();
    expect(result).toEqual({ role: 'gameServer', subject: 'eu-1', serverId: 'eu-1' });
  });

  it('refuses a client without a certificate', async () => {
    const { result, error } = await call(server.port);
    expect(result).toBeUndefined();
    expect(error?.code).toBe(status.UNAVAILABLE);
  });

  it('refuses a certificate from another CA, even one naming the same server', async () => {
    const { result, error } = await call(server.port, impostor);
    expect(result).toBeUndefined();
    expect(error?.code).toBe(status.UNAVAILABLE);
  });
});

describe('one port for players and servers (clientCertificates: request)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer(settings({ clientCertificates: 'request', serverIdentity: { from: 'uriSan', uriPrefix: 'spiffe://studio.test/gameserver/' } }));
  });
  afterAll(() => server.close());

  it('lets a client without a certificate in, with no game-server identity (players use tokens)', async () => {
    expect(await call(server.port)).toMatchObject({ result: null });
  });

  it('gives no identity for a certificate our CA did not sign', async () => {
    expect(await call(server.port, impostor)).toMatchObject({ result: null });
  });

  it('reads the identity from a URI SAN after the configured prefix', async () => {
    expect((await call(server.port, gameServer)).result).toEqual({ role: 'gameServer', subject: 'eu-1-uri', serverId: 'eu-1-uri' });
  });
});

describe('hot reload', () => {
  it('new connections get the certificate written after start', async () => {
    copyFileSync(serverA.certFile, live.certFile);
    copyFileSync(serverA.keyFile, live.keyFile);
    const server = await startServer(settings());
    try {
      expect((await call(server.port, gameServer)).serverCn).toBe('coordinator-a');
      // Key first, then cert: between the two reads the pair may not match, which grpc-js survives.
      copyFileSync(serverB.keyFile, live.keyFile);
      copyFileSync(serverB.certFile, live.certFile);
      let seen: string | undefined;
      for (let attempt = 0; attempt < 100 && seen !== 'coordinator-b'; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = (await call(server.port, gameServer)).serverCn;
      }
      expect(seen).toBe('coordinator-b');
      expect((await call(server.port, gameServer)).result).toEqual({ role: 'gameServer', subject: 'eu-1', serverId: 'eu-1' });
    } finally {
      await server.close();
    }
  });
});

describe('checkFiles', () => {
  it('names the field when a file is missing, unparsable, or the key is not the certificate’s', () => {
    const base = { certFile: serverA.certFile, keyFile: serverA.keyFile, caFile: ca.certFile, clientCertificates: 'request' as const };
    expect(() => checkFiles(base)).not.toThrow();
    expect(() => checkFiles({ ...base, certFile: join(dir, 'nope.crt') })).toThrow(/security.tls.certFile: cannot read .*nope.crt \(ENOENT\)/);
    expect(() => checkFiles({ ...base, keyFile: serverA.certFile })).toThrow(/security.tls.keyFile: .* is not a PEM private key/);
    expect(() => checkFiles({ ...base, keyFile: serverB.keyFile })).toThrow(CredentialsError);
    expect(() => checkFiles({ ...base, keyFile: serverB.keyFile })).toThrow(/is not the key of/);
    expect(() => checkFiles({ ...base, caFile: undefined })).toThrow(/security.tls.caFile: needed for clientCertificates: request/);
  });
});
