import { z } from 'zod';
import { LIMITS } from '../attributes/limits.js';
import { limitsSchema } from '../security/limits/limits-config.js';
import { securitySchema } from '../security/security-config.js';
import { DEFAULT_STORE_IN_FLIGHT_AFTER_MS } from './config.js';

/** Defaults of the `grpc` section, also what a gRPC server started without settings uses. */
export const GRPC_DEFAULTS = {
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 10_000,
} as const;

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

const geoPoint = z.strictObject({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});

/** Destiny thesis, "Locality": a latency prior for tickets that measured no ping. */
const locality = z.strictObject({
  /** Round-trip ms per km of great-circle distance; ~0.02 on real routes (twice light in fibre). */
  msPerKm: z.number().positive().max(1).default(0.02),
  /** ms added to every prior: the last mile and the server's own delay. */
  baseMs: z.number().min(0).max(1000).default(10),
  /** Where each region's servers are; keys must be among `regions`. */
  regions: z.record(z.string().min(1).max(LIMITS.maxKeyLength), geoPoint),
});

/** Destiny thesis, soft filters: prefer games whose players share a soft attribute's value. */
const softPreference = z.strictObject({
  attribute: key,
  /** Cost, in sigma of skill, of a game where no two players agree (0.25 ~ a quarter sigma). */
  weight: z.number().positive().max(100),
});

/** What a factory wants instead of hand-tuned score windows (src/competitive/target-windows.ts). */
const waitTarget = z
  .strictObject({
    /** The p99 wait to aim for: windows are as narrow as that allows. */
    waitP99Ms: z.number().int().min(1).max(3_600_000).optional(),
    /** The mean wait to aim for as well (at most waitP99Ms). */
    meanWaitMs: z.number().int().min(1).max(3_600_000).optional(),
    /** A mean score gap (in sigmas of the factory's scores) to keep to, waiting as little as that allows. */
    meanGapSigma: z.number().positive().max(100).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.waitP99Ms === undefined && t.meanWaitMs === undefined && t.meanGapSigma === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give waitP99Ms, meanWaitMs or meanGapSigma' });
    }
    if (t.meanWaitMs !== undefined && t.meanGapSigma !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['meanGapSigma'], message: 'give meanWaitMs or meanGapSigma, not both' });
    }
    if (t.meanWaitMs !== undefined && t.waitP99Ms !== undefined && t.meanWaitMs > t.waitP99Ms) {
      ctx.addIssue({ code: 'custom', path: ['meanWaitMs'], message: 'must not exceed waitP99Ms' });
    }
  });

const bounds = (min: number, max: number) =>
  z
    .strictObject({ min: z.number().int().min(min).max(max), max: z.number().int().min(min).max(max) })
    .refine((b) => b.min <= b.max, { message: 'min must not exceed max', path: ['max'] });

/** Bounds on what a ticket may ask for itself (FindGameRequest wait_budget_ms and max_latency_ms). */
const playerLimits = z.strictObject({
  waitBudgetMs: bounds(1, 3_600_000).default({ min: 1_000, max: 600_000 }),
  maxLatencyMs: bounds(1, 60_000).default({ min: 1, max: 10_000 }),
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
    )
    .optional(),
  hillClimbBudgetMs: z.number().min(0).max(10_000).default(20),
  maps: z.array(z.string().min(1).max(LIMITS.maxKeyLength)).max(LIMITS.maxListLength).default([]),
  regions: z.array(z.string().min(1).max(LIMITS.maxKeyLength)).max(LIMITS.maxListLength).default([]),
  locality: locality.optional(),
  softPreferences: z.array(softPreference).max(LIMITS.maxMatchableKeys).default([]),
  /**
   * 1v1: whose window a pair must fit. reciprocal (default): both windows (the skill-bucket
   * design, and the first release's behaviour); longer-waiter: the window of whoever has waited longer
   * (docs/match-quality.md compares them); mean: the mean of the two (the lenience model).
   */
  pairWindow: z.enum(['reciprocal', 'longer-waiter', 'mean', 'budget']).optional(),
  /**
   * Score windows from a wait target instead of the expansion's maxScoreGap (which must then be
   * left out; the expansion still widens latency caps). pairWindow defaults to `budget` with it.
   */
  target: waitTarget.optional(),
  playerLimits: playerLimits.optional(),
  /** One player's performance spread around their score (TrueSkill's beta), for a game's predicted balance. */
  performanceSd: z.number().positive().optional(),
  /** A ladder (top-level `ladders`) whose ratings stand in for a ticket's missing score. */
  ladder: key.optional(),
  /**
   * A ready check: every party of a proposed game accepts within timeoutMs before it is created
   * (1 to 600 s, as GameLift FlexMatch's acceptanceTimeoutSeconds).
   */
  acceptance: z.strictObject({ timeoutMs: z.number().int().min(1_000).max(600_000) }).optional(),
  /** A match-function service (proto MatchFunction) that proposes this factory's games from each batch. */
  matchFunction: z
    .strictObject({
      /** host:port of the service (plaintext gRPC). */
      address: z.string().min(3).max(256).regex(/^[^\s]+:\d{1,5}$/, 'must be host:port'),
      /** Past this, on the coordinator's clock, the batch is matched by the built-in matcher. */
      timeoutMs: z.number().int().min(1).max(60_000).default(1_000),
      /** Most candidate tickets sent in one batch (the oldest first). */
      maxTickets: z.number().int().min(2).max(100_000).default(1_000),
    })
    .optional(),
}).superRefine((c, ctx) => {
  if (c.target === undefined && c.expansion === undefined) {
    ctx.addIssue({ code: 'custom', path: ['expansion'], message: 'give an expansion, or a target' });
  }
  if (c.target !== undefined) {
    (c.expansion ?? []).forEach((step, i) => {
      if (step.maxScoreGap !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['expansion', i, 'maxScoreGap'], message: 'the target sets score windows; give only maxLatencyMs' });
      }
    });
  }
  for (const region of Object.keys(c.locality?.regions ?? {})) {
    if (!c.regions.includes(region)) {
      ctx.addIssue({ code: 'custom', path: ['locality', 'regions', region], message: `"${region}" is not one of regions` });
    }
  }
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

const positive = z.number().positive().finite();
const eloParams = z.strictObject({
  kFactor: positive.default(32),
  scale: positive.default(400),
  initialRating: z.number().finite().default(1500),
  initialUncertainty: z.number().min(0).finite().default(200),
});
const glicko2Params = z
  .strictObject({
    tau: positive.default(0.5),
    initialRating: z.number().finite().default(1500),
    initialDeviation: positive.default(350),
    initialVolatility: positive.default(0.06),
    ratingPeriodDays: positive.default(14),
    minRating: z.number().finite().default(450),
    maxRating: z.number().finite().default(2550),
    minDeviation: positive.default(30),
    minVolatility: positive.default(0.04),
    maxVolatility: positive.default(0.08),
    maxRankPoints: positive.default(10_000),
    maxRankPointsStep: positive.default(500),
  })
  .superRefine((g, ctx) => {
    if (!(g.minRating < g.initialRating && g.initialRating < g.maxRating)) {
      ctx.addIssue({ code: 'custom', path: ['initialRating'], message: 'must lie strictly between minRating and maxRating' });
    }
    if (g.minDeviation > g.initialDeviation) {
      ctx.addIssue({ code: 'custom', path: ['minDeviation'], message: 'must not exceed initialDeviation' });
    }
    if (!(g.minVolatility <= g.initialVolatility && g.initialVolatility <= g.maxVolatility)) {
      ctx.addIssue({ code: 'custom', path: ['initialVolatility'], message: 'must lie within minVolatility..maxVolatility' });
    }
  });
const trueskillParams = z.strictObject({
  mu: z.number().finite().default(25),
  sigma: positive.default(25 / 3),
  beta: positive.default(25 / 6),
  tau: z.number().min(0).finite().default(25 / 300),
  drawProbability: z.number().min(0).lt(1).default(0.1),
});

/** A rating ladder: a system with its parameters, and the abuse rules. */
const ladder = z
  .strictObject({
    name: key,
    system: z.enum(['elo', 'glicko2', 'trueskill']),
    elo: eloParams.optional(),
    glicko2: glicko2Params.optional(),
    trueskill: trueskillParams.optional(),
    /** Shorter games do not count (Battle.net talk: "require min game time"). */
    minGameSeconds: z.number().min(0).max(86_400).default(0),
    /** A player who left before the end loses, whatever their team did. */
    earlyLeaverCountsAsLoss: z.boolean().default(true),
  })
  .superRefine((l, ctx) => {
    for (const other of ['elo', 'glicko2', 'trueskill'] as const) {
      if (other !== l.system && l[other] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [other], message: `parameters for ${other}, but the ladder's system is ${l.system}` });
      }
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
      /** Competitive tickets waiting in one factory's pool; beyond it FindGame fails RESOURCE_EXHAUSTED. */
      maxPooledPerFactory: z.number().int().min(1).max(10_000_000).default(100_000),
      /** A ticket not assigned within this ends with DEADLINE_EXCEEDED. */
      ticketTtlSeconds: z.number().int().min(1).max(86_400).default(300),
      /**
       * The tickets of a creation not yet confirmed this long after its order are stored with where
       * it was sent (a restarted coordinator then gives their retries the game the server
       * re-announces); 0: at once. Most servers confirm sooner, and those tickets are never written.
       */
      storeInFlightAfterMs: z.number().int().min(0).max(600_000).default(DEFAULT_STORE_IN_FLIGHT_AFTER_MS),
    })
    .default({ policy: 'fill', createTimeoutMs: 5000, maxQueuedPerFactory: 100_000, maxPooledPerFactory: 100_000, ticketTtlSeconds: 300, storeInFlightAfterMs: DEFAULT_STORE_IN_FLIGHT_AFTER_MS }),
  servers: z
    .strictObject({
      /** Keepalive period on the game-server stream; silence for 3 periods disconnects a server. */
      keepaliveIntervalMs: z.number().int().min(50).max(600_000).default(5000),
      /**
       * A hello naming an attribute key no template partitions by, a value no template allows, or
       * hosting no factory: refused with INVALID_ARGUMENT (refuse), or accepted with a warning (warn).
       */
      unknownAttributes: z.enum(['refuse', 'warn']).default('refuse'),
    })
    .default({ keepaliveIntervalMs: 5000, unknownAttributes: 'refuse' }),
  /** The gRPC server itself, for every client and server connection (keepalive, deadlines, message size). */
  grpc: z
    .strictObject({
      /** HTTP/2 PING sent on a connection idle this long, so dead peers are found on quiet links. */
      keepaliveTimeMs: z.number().int().min(1000).max(7_200_000).default(GRPC_DEFAULTS.keepaliveTimeMs),
      /** A PING unanswered for this long closes the connection. */
      keepaliveTimeoutMs: z.number().int().min(1000).max(600_000).default(GRPC_DEFAULTS.keepaliveTimeoutMs),
      // Message size is one setting, limits.maxMessageBytes (both directions, counted), so no two settings can disagree.
    })
    .default(GRPC_DEFAULTS),
  /** The HTTP gateway (Connect, gRPC-Web, JSON) started by --http-listen. */
  http: z
    .strictObject({
      /** Origins ("https://play.example.com") whose pages may call it; "*" any; none by default. */
      corsOrigins: z
        .array(z.string().regex(/^(\*|https?:\/\/[^/\s]+)$/, 'an origin is scheme://host[:port] with no path, or "*"'))
        .max(1000)
        .default([]),
    })
    .default({ corsOrigins: [] }),
  ladders: z
    .array(ladder)
    .default([])
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'ladder names must be unique'),
  /** TLS, mTLS and tokens; see src/security/security-config.ts. */
  security: securitySchema,
  /** Per-peer and per-stream limits; see src/security/limits/limits-config.ts. */
  limits: limitsSchema,
  factories: z
    .array(template)
    .min(1)
    .refine((ts) => new Set(ts.map((t) => t.name)).size === ts.length, 'factory names must be unique'),
}).superRefine((c, ctx) => {
  const ladders = new Set(c.ladders.map((l) => l.name));
  c.factories.forEach((t, i) => {
    const name = t.competitive?.ladder;
    if (name !== undefined && !ladders.has(name)) {
      ctx.addIssue({ code: 'custom', path: ['factories', i, 'competitive', 'ladder'], message: `no ladder named "${name}" under \`ladders\`` });
    }
  });
});

export type RawConfig = z.infer<typeof configSchema>;
export type RawTemplate = z.infer<typeof template>;
export type RawLadder = z.infer<typeof ladder>;

/** Every parameter at its default, for a ladder that gives no parameter block. */
export const eloDefaults = eloParams.parse({});
export const glicko2Defaults = glicko2Params.parse({});
export const trueskillDefaults = trueskillParams.parse({});
