/** What the chaos game servers process does (perf/chaos/servers.ts), passed to it as JSON. */
export interface ServersPlan {
  /** Coordinator nodes; server i connects to node i first (mod their number), then the next ones. */
  readonly addresses: readonly string[];
  readonly serverIds: readonly string[];
  readonly maxGames: number;
  /** Each template's game size, for the contract's 'game' observations. */
  readonly maxPlayers: Record<string, number>;
  /** Every server connects to the first address first (the failover run: all on one node). */
  readonly firstNodeOnly?: boolean;
  readonly out: string;
}

/** A line on the process's stdin: a new capacity for every server. */
export interface ServersCommand {
  readonly maxGames: number;
}
