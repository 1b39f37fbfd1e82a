import { experimental, type ServerCredentials } from '@grpc/grpc-js';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsSettings } from '../security-config.js';

export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
}

/**
 * TLS server credentials that follow their files: grpc-js's FileWatcherCertificateProvider re-reads
 * cert, key and CA every `reloadIntervalMs` and the server swaps its secure context for new
 * connections (grpc-js ≥ 1.10, `experimental.createCertificateProviderServerCredentials`).
 * Replace the files atomically (write aside, rename): a cert read without its matching key makes
 * grpc-js drop new connections until the next read. Files are checked once at start, so a wrong
 * path or a key that does not match fails with a clear message rather than refused handshakes.
 */
export async function tlsServerCredentials(tls: TlsSettings): Promise<ServerCredentials> {
  checkFiles(tls);
  const withCa = tls.clientCertificates !== 'none';
  const provider = new experimental.FileWatcherCertificateProvider({
    certificateFile: tls.certFile,
    privateKeyFile: tls.keyFile,
    ...(withCa ? { caCertificateFile: tls.caFile } : {}),
    refreshIntervalMs: tls.reloadIntervalMs,
  });
  await firstRead(provider, withCa);
  // grpc-js 1.14 declares (caProvider, identityProvider, ...) but passes them to the constructor
  // as (identity, ca, ...): the first argument is used for the identity. One provider serves both.
  return experimental.createCertificateProviderServerCredentials(provider, withCa ? provider : null, tls.clientCertificates === 'require');
}

/**
 * grpc-js drops connections until the provider's first (asynchronous) read lands; reading once
 * before bind means the server has its certificate from its first connection. Removing our
 * listeners stops the timer; the server's own watcher restarts it and gets this read at once.
 */
function firstRead(provider: experimental.FileWatcherCertificateProvider, withCa: boolean): Promise<void> {
  return new Promise((resolve) => {
    let identity = false;
    let ca = !withCa;
    const settle = () => {
      if (!identity || !ca) return;
      provider.removeIdentityCertificateListener(onIdentity);
      provider.removeCaCertificateListener(onCa);
      resolve();
    };
    const onIdentity = () => {
      identity = true;
      settle();
    };
    const onCa = () => {
      ca = true;
      settle();
    };
    provider.addIdentityCertificateListener(onIdentity);
    provider.addCaCertificateListener(onCa);
  });
}

/** Pure over the file contents: each file parses, and the key belongs to the certificate. */
export function checkFiles(tls: Pick<TlsSettings, 'certFile' | 'keyFile' | 'caFile' | 'clientCertificates'>): void {
  const cert = parse('security.tls.certFile', tls.certFile, (pem) => new X509Certificate(pem));
  const key = parse('security.tls.keyFile', tls.keyFile, (pem) => createPrivateKey(pem));
  if (!cert.checkPrivateKey(key)) throw new CredentialsError(`security.tls.keyFile: ${tls.keyFile} is not the key of ${tls.certFile}`);
  if (tls.clientCertificates !== 'none') {
    if (tls.caFile === undefined) throw new CredentialsError(`security.tls.caFile: needed for clientCertificates: ${tls.clientCertificates}`);
    parse('security.tls.caFile', tls.caFile, (pem) => new X509Certificate(pem));
  }
}

function parse<T>(field: string, path: string, parser: (pem: Buffer) => T): T {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (error) {
    throw new CredentialsError(`${field}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return parser(pem);
  } catch (error) {
    throw new CredentialsError(`${field}: ${path} is not a PEM ${field.endsWith('keyFile') ? 'private key' : 'certificate'} (${(error as Error).message})`);
  }
}
