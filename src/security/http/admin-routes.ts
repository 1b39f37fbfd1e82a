import type { IncomingMessage, ServerResponse } from 'node:http';
import { SecurityError } from '../errors.js';
import type { TokenVerifier } from '../tokens/token-verifier.js';
import { overTls } from './https-server.js';

type Routes = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The operator page behind the admin role: a request it would answer needs an admin
 * token, as `Authorization: Bearer <jwt>` (scripts) or as the password of HTTP basic auth (a
 * browser asks once and resends it with the page's polls). Requests the page does not answer
 * (GET /metrics) pass through untouched. Tokens are checked asynchronously, so the guarded routes
 * are offered a request only once it is admitted.
 */
export function adminOnlyRoutes(routes: Routes, tokens: TokenVerifier | undefined): Routes {
  return (req, res) => {
    if (req.url?.split('?')[0] === '/metrics') return false;
    const token = tokenOf(req.headers.authorization);
    const deny = (code: 401 | 403, message: string) => {
      res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', ...(code === 401 ? { 'www-authenticate': 'Basic realm="gamefactory operator page (password: an admin token)"' } : {}) });
      res.end(`${message}\n`);
    };
    // A token sent in plaintext may already be stolen (it also authorizes Drain): refused, and the
    // page is served over HTTPS whenever security.tls is configured.
    if (!overTls(req.socket)) {
      deny(403, 'the operator page takes an admin token over HTTPS only: configure security.tls (the metrics port then serves HTTPS)');
      return true;
    }
    if (!token) {
      deny(401, 'the operator page needs an admin token (Authorization: Bearer <token>, or basic auth with the token as password)');
      return true;
    }
    if (!tokens) {
      deny(403, 'security.tokens is not configured: no admin token can be checked');
      return true;
    }
    tokens.verify(token).then(
      (principal) => {
        if (principal.role !== 'admin') return deny(403, `the operator page is for admins (you are ${principal.role} "${principal.subject}")`);
        if (!routes(req, res)) {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('gamefactory: metrics are at /metrics, the operator page at /\n');
        }
      },
      (error: unknown) => deny(401, error instanceof SecurityError ? error.message : 'the token could not be checked'),
    );
    return true;
  };
}

function tokenOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!value) return undefined;
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}
