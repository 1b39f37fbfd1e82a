import { z } from 'zod';
import { LIMITS } from '../attributes/limits.js';
import { limitsSchema } from '../security/limits/limits-config.js';
import { securitySchema } from '../security/security-config.js';

/**
 * The shape of factories.yaml. Parsing is `parse (YAML) -> validate (this schema) -> normalise`
 * (load.ts); everything after reading the file is pure.
 */
const scalar = z.union([z.string().max(LIMITS.maxValueLength), z.number().finite(), z.boolean()]);
const key = z
  .string()
  .min(1)
  .max(LIMITS.maxKeyLength)
  .regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, "_", "." or "-"');

const cooperative = z.strictObject({
  maxPlayers: z.number().int().min(1).max(1024),
  /** fill: fewest sufficient open slots first, so games fill up; spread: most first. */
  order: z.enum(['fill', 'spread']).default('fill'),
  /** How long seats promised to a party are held before they are freed. */
  reservationMs: z.number().int().min(100).max(600_000).default(10_000),
});

const expansionStep = z.strictObject({
  afterSeconds: z.number().min(0),
  /** Largest score difference allowed; left out = any. */
  maxScoreGap: z.number().positive().optional(),
  /** Worst latency allowed to the chosen region; left out = any. */
  maxLatencyMs: z.number().positive().optional(),
});

const competitive = z.strictObject({
  teams: z.number().int().min(2).max(64),
  teamSize: z.number().int().min(1).max(LIMITS.maxPartySize),
  teamScore: z.enum(['mean', 'max', 'weighted']).default('mean'),
  batch: z
    .strictObject({
      maxTickets: z.number().int().min(2).max(1_000_000).default(1000),
      intervalMs: z.number().int().min(10).max(600_000).default(1000),
    })
    .default({ maxTickets: 1000, intervalMs: 1000 }),
  expansion: z
    .array(expansionStep)
    .min(1)
    .refine((steps) => steps[0]?.afterSeconds === 0, 'the first step must start at afterSeconds: 0')
    .refine(
      (steps) => steps.every((s, i) => i === 0 || s.afterSeconds > steps[i - 1]!.afterSeconds),
      'steps must be in increasing afterSeconds order',
    ),
  hillClimbBudgetMs: z.number().min(0).max(10_000).default(20),
  maps: z.array(z.string().min(1).max(LIMITS.maxKeyLength)).max(LIMITS.maxListLength).default([]),
  regions: z.array(z.string().min(1).max(LIMITS.maxKeyLength)).max(LIMITS.maxListLength).default([]),
});

const template = z
  .strictObject({
    name: key,
    /** Partitioning axes: attribute key -> allowed values. Hard shards of the player base. */
    partitioning: z.record(key, z.array(scalar).min(1).max(1024)).default({}),
    /** Matchable attribute keys: soft, may change during play. */
    matchable: z.array(key).max(LIMITS.maxMatchableKeys).default([]),
    cooperative: cooperative.optional(),
    competitive: competitive.optional(),
  })
  .superRefine((t, ctx) => {
    if ((t.cooperative === undefined) === (t.competitive === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one strategy: `cooperative` or `competitive`' });
    }
    if (new Set(t.matchable).size !== t.matchable.length) {
      ctx.addIssue({ code: 'custom', path: ['matchable'], message: 'keys must be unique' });
    }
    for (const k of t.matchable) {
      if (k in t.partitioning) {
        ctx.addIssue({ code: 'custom', path: ['matchable'], message: `"${k}" is already a partitioning axis` });
      }
    }
    let product = 1;
    for (const [axis, values] of Object.entries(t.partitioning)) {
      product *= values.length;
      const seen = new Set(values.map((v) => `${typeof v}:${String(v)}`));
      if (seen.size !== values.length) {
        ctx.addIssue({ code: 'custom', path: ['partitioning', axis], message: 'values must be unique' });
      }
    }
    if (product > LIMITS.maxFactoriesPerTemplate) {
      ctx.addIssue({
        code: 'custom',
        path: ['partitioning'],
        message: `expands to ${product} factories; at most ${LIMITS.maxFactoriesPerTemplate}`,
      });
    }
  });

export const configSchema = z.strictObject({
  placement: z
    .strictObject({
      /** Which server gets a new game: fill up servers, or spread load evenly. */
      policy: z.enum(['fill', 'spread']).default('fill'),
      /** A server must confirm a CreateGame within this, or the order is taken back. */
      createTimeoutMs: z.number().int().min(100).max(600_000).default(5000),
      /** Tickets waiting for a slot, per factory; beyond it FindGame fails RESOURCE_EXHAUSTED. */
      maxQueuedPerFactory: z.number().int().min(1).max(10_000_000).default(100_000),
      /** A ticket not assigned within this ends with DEADLINE_EXCEEDED. */
      ticketTtlSeconds: z.number().int().min(1).max(86_400).default(300),
    })
    .default({ policy: 'fill', createTimeoutMs: 5000, maxQueuedPerFactory: 100_000, ticketTtlSeconds: 300 }),
  servers: z
    .strictObject({
      /** Keepalive period on the game-server stream; silence for 3 periods disconnects a server. */
      keepaliveIntervalMs: z.number().int().min(50).max(600_000).default(5000),
    })
    .default({ keepaliveIntervalMs: 5000 }),
  /** TLS, mTLS and tokens (issue 14); see src/security/security-config.ts. */
  security: securitySchema,
  /** Per-peer and per-stream limits (issue 14); see src/security/limits/limits-config.ts. */
  limits: limitsSchema,
  factories: z
    .array(template)
    .min(1)
    .refine((ts) => new Set(ts.map((t) => t.name)).size === ts.length, 'factory names must be unique'),
});

export type RawConfig = z.infer<typeof configSchema>;
export type RawTemplate = z.infer<typeof template>;
