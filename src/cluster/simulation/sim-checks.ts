/** A broken promise of the cluster contract, as the simulator saw it. */
export interface Violation {
  readonly rule: 'one-game' | 'game-size' | 'server-slots' | 'told-without-seat' | 'told-twice' | 'fence' | 'lost' | 'refused-join';
  readonly at: number;
  readonly detail: string;
}

/**
 * The cluster contract checked as the simulated world runs, from what the game servers and clients
 * see (the simulator's god's-eye view): a player seated in one live game at most; no game over its
 * size, no server over its slots; every assignment backed by a seat its server holds when the client
 * hears it; one assignment per ticket; fencing tokens that only go up; and, at the end, no ticket
 * left without an answer.
 */
export class SimChecks {
  readonly violations: Violation[] = [];
  /** Live seats of each player: "server/game". */
  private readonly seatsOf = new Map<string, Set<string>>();
  private readonly tokens = new Map<number, number>();
  private readonly told = new Map<string, string>();

  constructor(private readonly now: () => number) {}

  private flag(rule: Violation['rule'], detail: string): void {
    this.violations.push({ rule, at: this.now(), detail });
  }

  seat(serverId: string, gameId: string, playerId: string, seats: number, maxPlayers: number): void {
    const key = `${serverId}/${gameId}`;
    let held = this.seatsOf.get(playerId);
    if (!held) this.seatsOf.set(playerId, (held = new Set()));
    held.add(key);
    if (held.size > 1) this.flag('one-game', `player ${playerId} holds seats in ${[...held].join(' and ')}`);
    if (seats > maxPlayers) this.flag('game-size', `game ${key} has ${seats} seats for ${maxPlayers} players`);
  }

  seatFreed(serverId: string, gameId: string, playerId: string): void {
    const held = this.seatsOf.get(playerId);
    held?.delete(`${serverId}/${gameId}`);
    if (held?.size === 0) this.seatsOf.delete(playerId);
  }

  game(serverId: string, games: number, maxGames: number): void {
    if (games > maxGames) this.flag('server-slots', `server ${serverId} runs ${games} games for ${maxGames} slots`);
  }

  /** A client heard its assignment: every player of its party must hold that seat now. */
  assigned(ticketId: string, serverId: string, gameId: string, playerIds: readonly string[]): void {
    const where = `${serverId}/${gameId}`;
    const before = this.told.get(ticketId);
    if (before !== undefined && before !== where) this.flag('told-twice', `ticket ${ticketId} was told ${before} and then ${where}`);
    this.told.set(ticketId, where);
    for (const playerId of playerIds) {
      if (!this.seatsOf.get(playerId)?.has(where)) this.flag('told-without-seat', `ticket ${ticketId}: player ${playerId} was told ${where}, where its server holds no seat for it`);
    }
  }

  joinRefused(serverId: string, gameId: string, playerId: string): void {
    this.flag('refused-join', `player ${playerId} came to ${serverId}/${gameId} and had no seat there`);
  }

  term(shard: number, token: number, node: string): void {
    const last = this.tokens.get(shard);
    if (last !== undefined && token <= last) this.flag('fence', `shard ${shard}: ${node} took token ${token} after ${last}`);
    this.tokens.set(shard, token);
  }

  /** At the end: a ticket still without an answer was lost. */
  unanswered(ticketId: string, state: string): void {
    this.flag('lost', `ticket ${ticketId} is still ${state} at the end`);
  }
}
