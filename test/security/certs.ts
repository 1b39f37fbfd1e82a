import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test certificates made with the system `openssl` (EC P-256, valid one day). A missing openssl
 * fails the test (never skips), as the brief requires under CI.
 */
export interface KeyPairFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

const CURVE = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeCa(dir: string, name: string): KeyPairFiles {
  const files = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
  openssl([
    'req', '-x509', ...CURVE, '-keyout', files.keyFile, '-out', files.certFile, '-days', '1', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return files;
}

export interface LeafOptions {
  readonly commonName: string;
  readonly dnsNames?: readonly string[];
  readonly uris?: readonly string[];
  readonly ips?: readonly string[];
}

/** A certificate signed by `ca`, usable for both server and client authentication. */
export function issue(dir: string, ca: KeyPairFiles, name: string, leaf: LeafOptions): KeyPairFiles {
  const files = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  const sans = [...(leaf.dnsNames ?? []).map((d) => `DNS:${d}`), ...(leaf.uris ?? []).map((u) => `URI:${u}`), ...(leaf.ips ?? []).map((ip) => `IP:${ip}`)];
  writeFileSync(
    ext,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth,clientAuth',
      ...(sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : []),
    ].join('\n'),
  );
  openssl(['req', ...CURVE, '-keyout', files.keyFile, '-out', csr, '-subj', `/CN=${leaf.commonName}`]);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-out', files.certFile, '-days', '1', '-extfile', ext]);
  return files;
}
