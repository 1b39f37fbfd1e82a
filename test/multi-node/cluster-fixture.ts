import { expect } from 'vitest';
import type { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import type { NodeProcess } from './node-process.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { findGame, type FindResult } from '../support/find-game.js';

export const PARTITION = { difficulty: 'hard', hardcore: false, version: 'v201' } as const;

export function server(address: string, serverId: string, maxGames: number, runningGames: GameServerConnection['identity']['runningGames'] = []): GameServerConnection {
  return new GameServerConnection(address, { serverId, endpoint: `${serverId}:7777`, attributes: { ...PARTITION }, templates: ['diablo'], maxGames, runningGames }, { autoJoin: true });
}

export function find(client: MatchmakerClient, ticketId: string, signal?: AbortSignal): Promise<FindResult> {
  return findGame(client, { ticketId, template: 'diablo', party: [`p-${ticketId}`], partition: { ...PARTITION } }, signal);
}

/** Retries `attempt` until it resolves (a call refused while the matcher moves), up to `timeoutMs`. */
export async function retried<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * A game server that reconnects when its stream ends (its node died, or the matcher moved) and
 * re-announces its running games; players join only once their client holds the assignment.
 */
export class ReconnectingServer {
  connection: GameServerConnection;
  readonly seated = new Map<string, Set<string>>();
  reconnects = 0;
  private closed = false;

  constructor(
    private address: () => string,
    readonly serverId: string,
    private maxGames: number,
  ) {
    this.connection = this.make();
  }

  async connect(): Promise<void> {
    await this.connection.connect();
    void this.connection.whenEnded().then(() => this.reconnect());
  }

  /** The client of `playerId` reached game `gameId`. */
  join(gameId: string, playerId: string): void {
    const game = this.seated.get(gameId) ?? new Set<string>();
    this.seated.set(gameId, game.add(playerId));
    this.connection.join(gameId, playerId);
  }

  /** Advertises new capacity now, and in every later hello. */
  setCapacity(maxGames: number): void {
    this.maxGames = maxGames;
    this.connection.setCapacity(maxGames);
  }

  /** Advertises `maxGames` from its next hello on (it comes back bigger), not on this connection. */
  capacityOnReconnect(maxGames: number): void {
    this.maxGames = maxGames;
  }

  close(): void {
    this.closed = true;
    this.connection.close();
  }

  private make(): GameServerConnection {
    const previous = this.connection as GameServerConnection | undefined;
    const runningGames = [...(previous?.games.values() ?? [])].map((g) => ({
      gameId: g.gameId,
      factory: g.factory,
      // The players in the game; seats reserved for players not yet there are the new owner's
      // to give again (the tickets are restored and placed anew).
      playerIds: [...new Set([...(this.seated.get(g.gameId) ?? []), ...g.players])],
      open: true,
      startedAt: Date.now() - 1000,
    }));
    const next = new GameServerConnection(this.address(), {
      serverId: this.serverId,
      endpoint: `${this.serverId}:7777`,
      attributes: { ...PARTITION },
      templates: ['diablo'],
      maxGames: this.maxGames,
      runningGames,
    });
    return next;
  }

  private async reconnect(): Promise<void> {
    while (!this.closed) {
      this.reconnects++;
      this.connection = this.make();
      try {
        await this.connect();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}

/** grpc.health.v1 Check on `address` for the whole server (""). */
export async function healthOf(address: string): Promise<string> {
  const { credentials, loadPackageDefinition } = await import('@grpc/grpc-js');
  const { loadSync } = await import('@grpc/proto-loader');
  const { protoPath } = await import('grpc-health-check');
  type Client = { check(req: object, cb: (e: Error | null, r: { status: string }) => void): void; close(): void };
  const pkg = loadPackageDefinition(loadSync(protoPath, { enums: String })) as unknown as {
    grpc: { health: { v1: { Health: new (a: string, c: ReturnType<typeof credentials.createInsecure>) => Client } } };
  };
  const client = new pkg.grpc.health.v1.Health(address, credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => client.check({ service: '' }, (e, r) => (e ? reject(e) : resolve(r.status))));
  } finally {
    client.close();
  }
}

/**
 * A ticket waiting on node `b` (its server, on `a`, has no free slot) resumes on `a` with the
 * same id while its stream on `b` ends, as if `b` died: it keeps its place in line, and asked on
 * `b` again once assigned, it gets the same assignment. Either cluster mode.
 */
export async function expectResumeKeepsPlace(a: NodeProcess, b: NodeProcess): Promise<void> {
  const [clientA, clientB] = [a.matchmaker(), b.matchmaker()];
  const s = server(a.address, 's1', 0);
  try {
    await s.connect();
    // The factory's owner (either node, sharded) knows the server before the ticket arrives:
    // until then a find waits for a server, not in line, and is told position 0.
    await retried(async () => expect(await factoriesServed(clientA, `diablo/difficulty=${PARTITION.difficulty}/hardcore=${PARTITION.hardcore}/version=${PARTITION.version}`)).toBe(1), 10_000);
    const abort = new AbortController();
    const waiting = find(clientB, 'r1', abort.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    const resumed = find(clientA, 'r1');
    await new Promise((r) => setTimeout(r, 300));
    abort.abort();
    await waiting;
    s.setCapacity(4);
    const { assignment: assigned, queued } = await resumed;
    expect(assigned.serverId).toBe('s1');
    expect(queued[0]?.position).toBe(1); // its place, not a new one
    // Asked again on B after the assignment: the same assignment.
    expect((await find(clientB, 'r1')).assignment.gameId).toBe(assigned.gameId);
  } finally {
    clientA.close();
    clientB.close();
    s.close();
  }
}

/** How many factories a QueryStats of this one factory counts (0 until a server that hosts it is known to its owner). */
export function factoriesServed(client: MatchmakerClient, factory: string): Promise<number> {
  return new Promise((resolve, reject) =>
    client.queryStats({ factory, template: '', partitionAttributes: {}, predicates: [], mode: 0 }, (error, stats) => (error ? reject(error) : resolve(stats.factories))),
  );
}
