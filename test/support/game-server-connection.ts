import type { ServiceError } from '@grpc/grpc-js';
import { GameServer, type GameOrder, type HostedGame, type PlainValue, type RunningGameInfo } from '@gamefactory/game-server-sdk';
import type { CoordinatorMessage, GameResult, GameResultAck, ServerMessage } from '@gamefactory/protocol/v1/game_server_link';

export interface GameServerIdentity {
  readonly serverId: string;
  readonly endpoint: string;
  readonly attributes?: Record<string, PlainValue>;
  readonly templates?: readonly string[];
  readonly maxGames: number;
  readonly maxStartsPerSecond?: number;
  readonly runningGames?: readonly RunningGameInfo[];
}

/** What the server does with a CreateGame order: create it, refuse it, or (a faulty server) ignore it. */
export type CreateDecision = 'create' | 'fail' | 'ignore';

export interface Behaviour {
  decide?: (order: GameOrder) => CreateDecision;
  /** The players of every order arrive at once, with their token, as if their clients connected. */
  autoJoin?: boolean;
  /** Answer keepalives (default true): a server that does not is dropped. */
  answerKeepalive?: boolean;
  /** End a game as soon as this many players are in it (load generation: games play instantly). */
  endWhenFull?: number;
  /** Batch both ways: reports of one tick in one ServerBatch, orders in CoordinatorBatch messages. */
  batch?: boolean;
  /** Reconnect (the SDK's backoff, games re-announced) when the stream ends; default off, so a test sees it end. */
  reconnect?: boolean;
}

/**
 * A game server for tests, on @gamefactory/game-server-sdk with reconnection off unless asked (`reconnect`): a test that
 * cuts a stream sees it end. It records every order and answer, and can misbehave on purpose
 * (ignore orders, keep silent on keepalives, send raw messages).
 */
export class GameServerConnection {
  readonly rejections: string[] = [];
  /** GameResultAck answers, in arrival order. */
  readonly resultAcks: GameResultAck[] = [];
  /** Orders received, CoordinatorBatch messages unpacked. */
  readonly orders: CoordinatorMessage[] = [];
  /** CoordinatorBatch messages received. */
  batchesReceived = 0;
  /** Games ended because they filled up (with `endWhenFull`). */
  gamesEnded = 0;
  /** How the stream ended: undefined while open, null for OK, else the error. */
  ended: ServiceError | null | undefined;
  private readonly sdk: GameServer;
  private readonly endedWaiters: ((e: ServiceError | null) => void)[] = [];

  constructor(
    address: string,
    readonly identity: GameServerIdentity,
    private readonly behaviour: Behaviour = {},
  ) {
    this.sdk = new GameServer({
      addresses: address,
      serverId: identity.serverId,
      endpoint: identity.endpoint,
      attributes: identity.attributes,
      templates: identity.templates,
      capacity: { maxGames: identity.maxGames, maxStartsPerSecond: identity.maxStartsPerSecond },
      runningGames: identity.runningGames,
      batch: behaviour.batch === true,
      reconnect: behaviour.reconnect === true ? {} : false,
      answerKeepalives: behaviour.answerKeepalive !== false,
      createGame: (order) => {
        const decision = behaviour.decide?.(order) ?? 'create';
        if (decision === 'fail') throw new Error('refused by test');
        if (decision === 'ignore') return new Promise<never>(() => {});
      },
    });
    this.sdk.on('message', (message) => this.record(message));
    this.sdk.on('rejected', (reason) => this.rejections.push(reason));
    this.sdk.on('seatsReserved', ({ gameId, playerIds }) => {
      if (behaviour.autoJoin) for (const playerId of playerIds) this.join(gameId, playerId);
    });
    this.sdk.on('closed', (error) => {
      this.ended = error ?? null;
      for (const waiter of this.endedWaiters.splice(0)) waiter(this.ended);
    });
  }

  get games(): ReadonlyMap<string, HostedGame> {
    return this.sdk.games;
  }

  /** Opens the stream and says hello; resolves with the coordinator's welcome. */
  connect(): Promise<{ factories: readonly string[]; keepaliveIntervalMs: number }> {
    return this.sdk.start();
  }

  /** Resolves when the stream ends: null for OK, or the error status. */
  whenEnded(): Promise<ServiceError | null> {
    if (this.ended !== undefined) return Promise.resolve(this.ended);
    return new Promise((resolve) => this.endedWaiters.push(resolve));
  }

  /** The player reached the game: with its seat's token when it has one, else reported as is. */
  join(gameId: string, playerId: string): void {
    const seat = this.sdk.games.get(gameId)?.seats.get(playerId);
    if (seat) void this.sdk.admit(gameId, playerId, seat.token).catch(() => {});
    else this.send({ event: { $case: 'playerJoined', value: { gameId, playerId } } });
    const game = this.sdk.games.get(gameId);
    if (game && this.behaviour.endWhenFull !== undefined && game.players.size >= this.behaviour.endWhenFull) {
      this.gamesEnded++;
      this.endGame(gameId);
    }
  }

  leave(gameId: string, playerId: string): void {
    this.sdk.leave(gameId, playerId);
  }

  endGame(gameId: string): void {
    this.sdk.endGame(gameId);
  }

  /** Reports a finished game's result; answered by a GameResultAck (in `resultAcks`) or `rejected`. */
  reportResult(result: GameResult): void {
    this.sdk.reportResult(result.gameId, result).catch(() => {});
  }

  setOpen(gameId: string, open: boolean): void {
    this.sdk.setOpen(gameId, open);
  }

  setAttributes(gameId: string, attributes: Record<string, PlainValue>): void {
    this.sdk.setAttributes(gameId, attributes);
  }

  setCapacity(maxGames: number, maxStartsPerSecond = 0): void {
    this.sdk.setCapacity({ maxGames, maxStartsPerSecond });
  }

  /** Sends a message as is, well-formed or not. */
  send(message: ServerMessage): void {
    this.sdk.send(message);
  }

  /** Hangs up, like a server process that exits. */
  close(): void {
    this.sdk.close();
  }

  private record(message: CoordinatorMessage): void {
    if (message.order?.$case === 'batch') {
      this.batchesReceived++;
      for (const inner of message.order.value.orders) this.record(inner);
      return;
    }
    this.orders.push(message);
    if (message.order?.$case === 'gameResultAck') this.resultAcks.push(message.order.value);
  }
}
