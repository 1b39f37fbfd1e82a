import { readFileSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:https';
import type { TlsSettings } from '../security-config.js';

/**
 * The metrics port over HTTPS with the coordinator's own certificate, so the operator page's
 * admin token never crosses the network in plaintext. The files are re-read every
 * `reloadIntervalMs` like the gRPC port's (new connections get a renewed certificate); a read
 * that fails (a file being replaced) keeps the previous context.
 */
export function httpsServerFollowing(tls: TlsSettings): { make: (listener: RequestListener) => Server; stop: () => void } {
  const read = () => ({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) });
  let timer: NodeJS.Timeout | undefined;
  const make = (listener: RequestListener): Server => {
    const server = createServer(read(), listener);
    timer = setInterval(() => {
      try {
        server.setSecureContext(read());
      } catch {
        // Half-replaced files: the next read gets both.
      }
    }, tls.reloadIntervalMs);
    timer.unref();
    return server as unknown as Server;
  };
  return { make, stop: () => clearInterval(timer) };
}

/** A request that came over TLS (the HTTPS metrics port). */
export const overTls = (socket: unknown): boolean => (socket as { encrypted?: boolean }).encrypted === true;
