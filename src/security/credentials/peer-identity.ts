import type { PeerCertificate } from 'node:tls';
import type { TlsSettings } from '../security-config.js';
import type { Principal } from '../tokens/principal.js';

/** grpc-js's AuthContext (not exported from its index): what `call.getAuthContext()` returns. */
export interface AuthContext {
  readonly transportSecurityType?: string;
  readonly sslPeerCertificate?: PeerCertificate;
}

export interface CertificateNames {
  readonly commonName?: string;
  readonly dnsNames: readonly string[];
  readonly uris: readonly string[];
}

/**
 * The names in a verified client certificate. grpc-js (≥ 1.12) exposes the peer certificate to
 * handlers and interceptors as `call.getAuthContext().sslPeerCertificate`, and only when the TLS
 * socket is `authorized` (the chain verified against our CA): an unverified certificate gives none.
 */
export function certificateNames(auth: AuthContext | null | undefined): CertificateNames | undefined {
  const cert = auth?.sslPeerCertificate;
  if (auth?.transportSecurityType !== 'ssl' || cert === undefined) return undefined;
  const cn = commonNameOf(cert);
  const sans = parseSubjectAltName(cert.subjectaltname ?? '');
  return { ...(cn ? { commonName: cn } : {}), dnsNames: sans.filter((s) => s.type === 'DNS').map((s) => s.value), uris: sans.filter((s) => s.type === 'URI').map((s) => s.value) };
}

/** The game server id a certificate proves, by the configured rule; undefined when it names none. */
export function serverIdentity(names: CertificateNames, rule: TlsSettings['serverIdentity']): string | undefined {
  switch (rule.from) {
    case 'commonName':
      return names.commonName || undefined;
    case 'dnsSan':
      return names.dnsNames[0];
    case 'uriSan': {
      const uri = names.uris.find((u) => u.startsWith(rule.uriPrefix) && u.length > rule.uriPrefix.length);
      return uri?.slice(rule.uriPrefix.length);
    }
  }
}

/** The principal of a game server's connection, from its verified certificate. */
export function gameServerPrincipal(auth: AuthContext | null | undefined, rule: TlsSettings['serverIdentity']): Principal | undefined {
  const names = certificateNames(auth);
  if (!names) return undefined;
  const serverId = serverIdentity(names, rule);
  return serverId === undefined ? { role: 'gameServer', subject: names.commonName ?? '(unnamed certificate)' } : { role: 'gameServer', subject: serverId, serverId };
}

function commonNameOf(cert: PeerCertificate): string | undefined {
  const cn = cert.subject?.CN as string | string[] | undefined;
  return Array.isArray(cn) ? cn[0] : cn;
}

/**
 * Node's `subjectaltname` string: `DNS:a, URI:spiffe://x, IP Address:1.2.3.4`; a name holding
 * a comma or quote is written as a JSON string (Node ≥ 17.3.1, CVE-2021-44533).
 */
export function parseSubjectAltName(text: string): { type: string; value: string }[] {
  const out: { type: string; value: string }[] = [];
  const entry = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/y;
  let match: RegExpExecArray | null;
  while (entry.lastIndex < text.length && (match = entry.exec(text)) !== null) {
    const raw = match[2]!;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        continue;
      }
    }
    out.push({ type: match[1]!.trim(), value });
  }
  return out;
}
