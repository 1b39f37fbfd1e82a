import { z } from 'zod';
import { LIMITS } from '../../attributes/limits.js';

const rate = (perSecond: number, burst: number) =>
  z
    .strictObject({
      perSecond: z.number().positive().max(1_000_000).default(perSecond),
      burst: z.number().int().min(1).max(10_000_000).default(burst),
    })
    .default({ perSecond, burst });

const DEFAULT_RATES = {
  findGame: { perSecond: 10, burst: 20 },
  findGames: { perSecond: 50, burst: 100 },
  queryStats: { perSecond: 5, burst: 10 },
  cancelFind: { perSecond: 20, burst: 40 },
  ratings: { perSecond: 20, burst: 40 },
};

/**
 * `limits:` in factories.yaml. Every limit refuses with RESOURCE_EXHAUSTED naming it,
 * and is counted. The defaults suit a player-facing port; gateways are exempt from the rates
 * because one gateway multiplexes a whole game's players.
 */
export const limitsSchema = z
  .strictObject({
    /** Token buckets per peer and method family; a FindGames stream spends one token per find. */
    rate: z
      .strictObject({
        findGame: rate(10, 20),
        findGames: rate(50, 100),
        queryStats: rate(5, 10),
        cancelFind: rate(20, 40),
        /** GetRating, Leaderboard and PlayerRank together. */
        ratings: rate(20, 40),
      })
      .default(DEFAULT_RATES),
    /** Roles not rate limited. */
    rateExemptRoles: z.array(z.enum(['player', 'gateway', 'admin', 'gameServer'])).default(['gateway']),
    /** Open streams (FindGame, FindGames, Connect, and unauthenticated health Watch by address) per peer. */
    maxStreamsPerPeer: z.number().int().min(1).max(1_000_000).default(32),
    /** Tickets waiting at once on one FindGames stream. */
    maxTicketsInFlightPerStream: z.number().int().min(1).max(10_000_000).default(10_000),
    /** Bytes of one gRPC message, both directions. */
    maxMessageBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(LIMITS.maxMessageBytes),
    /**
     * Bytes of orders and rejections a game server may leave unread on its link before it is ended:
     * the link is read whatever the server reads (keepalives must get through), so a server that keeps
     * sending but stops reading would grow memory without bound. Matchmaker streams need no such cap:
     * they stop reading a client's requests while it does not read its updates.
     */
    maxUnreadBytesPerStream: z.number().int().min(64 * 1024).max(1024 * 1024 * 1024).default(4 * 1024 * 1024),
    /** A Matchmaker stream with no message either way for this long is closed (the link has its keepalive). */
    idleStreamTimeoutMs: z.number().int().min(1000).max(86_400_000).default(600_000),
    /**
     * Peers whose counters are kept; beyond it the longest-idle peer without streams is forgotten,
     * and while every tracked peer holds a stream a new peer is refused.
     */
    maxTrackedPeers: z.number().int().min(16).max(10_000_000).default(100_000),
  })
  .default({
    rate: DEFAULT_RATES,
    rateExemptRoles: ['gateway'],
    maxStreamsPerPeer: 32,
    maxTicketsInFlightPerStream: 10_000,
    maxMessageBytes: LIMITS.maxMessageBytes,
    maxUnreadBytesPerStream: 4 * 1024 * 1024,
    idleStreamTimeoutMs: 600_000,
    maxTrackedPeers: 100_000,
  });

export type Limits = z.infer<typeof limitsSchema>;
export type RateFamily = keyof Limits['rate'];

/** The defaults, for code that runs without a config file (tests, examples). */
export const DEFAULT_LIMITS: Limits = limitsSchema.parse(undefined);
