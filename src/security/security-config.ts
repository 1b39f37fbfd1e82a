import { z } from 'zod';

/**
 * `security:` in factories.yaml. No secret sits in the file itself: keys and
 * certificates are paths, an HMAC secret comes from an environment variable. Leaving the section
 * out means development mode (plaintext, no roles), allowed on loopback only (dev-mode.ts).
 */
export const securitySchema = z
  .strictObject({
    tls: z
      .strictObject({
        certFile: z.string().min(1),
        keyFile: z.string().min(1),
        /** CA that signs game servers' client certificates; without it there is no mTLS. */
        caFile: z.string().min(1).optional(),
        /**
         * request: ask every peer for a certificate, verify it when sent (players come with
         * tokens instead); require: refuse a TLS handshake without a valid one (a port for game
         * servers only); none: never ask.
         */
        clientCertificates: z.enum(['none', 'request', 'require']).default('request'),
        /** How often the files are re-read; a changed certificate is used for new connections. */
        reloadIntervalMs: z.number().int().min(100).max(86_400_000).default(10_000),
        /** Where a game server's id is read from in its verified certificate. */
        serverIdentity: z
          .strictObject({
            from: z.enum(['commonName', 'dnsSan', 'uriSan']).default('commonName'),
            /** uriSan: the prefix before the id, e.g. spiffe://studio.example/gameserver/ */
            uriPrefix: z.string().default(''),
          })
          .default({ from: 'commonName', uriPrefix: '' }),
      })
      .superRefine((tls, ctx) => {
        if (tls.clientCertificates !== 'none' && tls.caFile === undefined) {
          ctx.addIssue({ code: 'custom', path: ['caFile'], message: `clientCertificates: ${tls.clientCertificates} needs caFile (the CA of game servers' certificates)` });
        }
      })
      .optional(),
    tokens: z
      .strictObject({
        issuer: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
        audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
        /** Name of the environment variable holding the HS256/384/512 secret (≥ 32 bytes). */
        hmacSecretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
        /** PEM public key for RS*, PS*, ES*, EdDSA tokens. */
        publicKeyFile: z.string().min(1).optional(),
        /** A JSON Web Key Set file, keys chosen by `kid`. */
        jwksFile: z.string().min(1).optional(),
        clockToleranceSeconds: z.number().int().min(0).max(600).default(30),
      })
      .refine((t) => t.hmacSecretEnv !== undefined || t.publicKeyFile !== undefined || t.jwksFile !== undefined, 'give hmacSecretEnv, publicKeyFile or jwksFile')
      .optional(),
  })
  .default({});

export type SecuritySettings = z.infer<typeof securitySchema>;
export type TlsSettings = NonNullable<SecuritySettings['tls']>;
