/**
 * Every size has a bound, so no client can make the coordinator hold unbounded memory or do
 * unbounded work. docs/protocol.md's "Input limits" table lists these.
 */
export const LIMITS = {
  /** Attributes in one map (server, partition, matchable, predicates). */
  maxAttributes: 16,
  maxKeyLength: 64,
  /** Bytes of a string or bytes value. */
  maxValueLength: 256,
  /** Identifiers: ticket, player, server, game, request ids; endpoints. */
  maxIdLength: 128,
  maxPartySize: 16,
  /** Matchable keys per factory template: each game is indexed under every subset (2^6 = 64). */
  maxMatchableKeys: 6,
  /** Factories one template may expand to (product of its axes' allowed values). */
  maxFactoriesPerTemplate: 4096,
  /** Games a server may announce in its hello, and its max concurrent games. */
  maxGamesPerServer: 100_000,
  /** Regions with latencies, and maps preferred or vetoed, on one ticket. */
  maxListLength: 32,
  /** gRPC message size, both directions. */
  maxMessageBytes: 1024 * 1024,
} as const;
