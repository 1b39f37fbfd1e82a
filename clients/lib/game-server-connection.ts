import { credentials, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import {
  GameServerLinkClient,
  type CoordinatorMessage,
  type CreateGame,
  type GameResult,
  type GameResultAck,
  type ReserveSeats,
  type RunningGame,
  type ServerMessage,
  type Welcome,
} from '../../src/generated/gamefactory/v1/game_server_link.js';
import { TickBatch } from './tick-batch.js';
import { wireAttributes, type PlainValue } from './wire-attributes.js';

export interface GameServerIdentity {
  readonly serverId: string;
  readonly endpoint: string;
  readonly attributes?: Record<string, PlainValue>;
  readonly templates?: readonly string[];
  readonly maxGames: number;
  readonly maxStartsPerSecond?: number;
  readonly runningGames?: readonly RunningGame[];
}

/** What the server does with a CreateGame order: create it, refuse it, or (a faulty server) ignore it. */
export type CreateDecision = 'create' | 'fail' | 'ignore';

export interface HostedGame {
  readonly gameId: string;
  readonly factory: string;
  readonly players: Set<string>;
  /** Players promised a seat who have not joined yet. */
  readonly expected: Set<string>;
}

/**
 * A game server's side of GameServerLink.Connect, small enough to read in one sitting: the example
 * game server, the tests, the load generator and the benchmarks all use it. With `autoJoin`, the
 * players of every order "arrive" at once, as if their clients connected to the game.
 */
export class GameServerConnection {
  readonly games = new Map<string, HostedGame>();
  readonly rejections: string[] = [];
  /** GameResultAck answers, in arrival order. */
  readonly resultAcks: GameResultAck[] = [];
  readonly orders: CoordinatorMessage[] = [];
  /** CoordinatorBatch messages received (with `batch`); `orders` holds their orders unpacked. */
  batchesReceived = 0;
  private stream: ClientDuplexStream<ServerMessage, CoordinatorMessage> | undefined;
  private readonly client: GameServerLinkClient;
  private nextGame = 1;
  /** How the stream ended: undefined while open, null for OK, else the error. */
  ended: ServiceError | null | undefined;
  private endedWaiters: ((e: ServiceError | null) => void)[] = [];

  constructor(
    address: string,
    readonly identity: GameServerIdentity,
    private readonly behaviour: {
      decide?: (order: CreateGame) => CreateDecision;
      autoJoin?: boolean;
      /** Answer keepalives (default true): a server that does not is dropped. */
      answerKeepalive?: boolean;
      /** End a game as soon as this many players are in it (load generation: games play instantly). */
      endWhenFull?: number;
      /**
       * Batch both ways (issue 15): reports of one tick leave in one ServerBatch, and the hello
       * asks for the coordinator's orders in CoordinatorBatch messages.
       */
      batch?: boolean;
    } = {},
  ) {
    this.client = new GameServerLinkClient(address, credentials.createInsecure());
    if (behaviour.batch) this.outbox = new TickBatch((events) => this.write({ event: { $case: 'batch', value: { events } } }));
  }

  private readonly outbox: TickBatch<ServerMessage> | undefined;

  /** Opens the stream and says hello; resolves with the coordinator's welcome. */
  connect(): Promise<Welcome> {
    const stream = this.client.connect();
    this.stream = stream;
    return new Promise((resolve, reject) => {
      stream.on('data', (message: CoordinatorMessage) => {
        if (message.order?.$case === 'batch') {
          // A CoordinatorBatch (issue 15) is its orders, handled one after the other as if each came alone.
          this.batchesReceived++;
          for (const inner of message.order.value.orders) stream.emit('data', inner);
          return;
        }
        this.orders.push(message);
        const order = message.order;
        switch (order?.$case) {
          case 'welcome':
            return resolve(order.value);
          case 'createGame':
            return this.onCreate(order.value);
          case 'reserveSeats':
            return this.onReserve(order.value);
          case 'keepalive':
            if (this.behaviour.answerKeepalive !== false) {
              this.send({ event: { $case: 'keepaliveAck', value: { sequence: order.value.sequence } } });
            }
            return;
          case 'rejected':
            this.rejections.push(order.value.reason);
            return;
          case 'gameResultAck':
            this.resultAcks.push(order.value);
            return;
        }
      });
      const end = (error: ServiceError | null) => {
        if (this.ended !== undefined) return;
        this.ended = error;
        reject(error ?? new Error('stream ended before welcome'));
        for (const waiter of this.endedWaiters.splice(0)) waiter(error);
      };
      stream.on('error', (e: ServiceError) => end(e));
      stream.on('end', () => end(null));
      const id = this.identity;
      this.write({
        event: {
          $case: 'hello',
          value: {
            serverId: id.serverId,
            endpoint: id.endpoint,
            attributes: wireAttributes(id.attributes),
            templates: [...(id.templates ?? [])],
            capacity: { maxGames: id.maxGames, maxStartsPerSecond: id.maxStartsPerSecond ?? 0 },
            runningGames: [...(id.runningGames ?? [])],
            acceptsBatches: this.behaviour.batch === true,
          },
        },
      });
    });
  }

  /** Resolves when the coordinator ends the stream: null for OK, or the error status. */
  whenEnded(): Promise<ServiceError | null> {
    if (this.ended !== undefined) return Promise.resolve(this.ended);
    return new Promise((resolve) => this.endedWaiters.push(resolve));
  }

  private onCreate(order: CreateGame): void {
    const decision = this.behaviour.decide?.(order) ?? 'create';
    if (decision === 'ignore') return;
    if (decision === 'fail') {
      this.send({ event: { $case: 'gameCreationFailed', value: { requestId: order.requestId, reason: 'refused by test' } } });
      return;
    }
    const gameId = `${this.identity.serverId}-g${this.nextGame++}`;
    const game: HostedGame = { gameId, factory: order.factory, players: new Set(), expected: new Set() };
    this.games.set(gameId, game);
    this.send({ event: { $case: 'gameCreated', value: { requestId: order.requestId, gameId } } });
    this.seat(game, order.seats.map((s) => s.playerId));
  }

  private onReserve(order: ReserveSeats): void {
    const game = this.games.get(order.gameId);
    if (game) this.seat(game, order.seats.map((s) => s.playerId));
  }

  private seat(game: HostedGame, playerIds: string[]): void {
    for (const playerId of playerIds) {
      if (this.behaviour.autoJoin) this.join(game.gameId, playerId);
      else game.expected.add(playerId);
    }
  }

  join(gameId: string, playerId: string): void {
    const game = this.games.get(gameId);
    game?.expected.delete(playerId);
    game?.players.add(playerId);
    this.send({ event: { $case: 'playerJoined', value: { gameId, playerId } } });
    if (game && this.behaviour.endWhenFull !== undefined && game.players.size >= this.behaviour.endWhenFull) {
      this.gamesEnded++;
      this.endGame(gameId);
    }
  }

  /** Games ended because they filled up (with `endWhenFull`). */
  gamesEnded = 0;

  leave(gameId: string, playerId: string): void {
    this.games.get(gameId)?.players.delete(playerId);
    this.send({ event: { $case: 'playerLeft', value: { gameId, playerId } } });
  }

  endGame(gameId: string): void {
    this.games.delete(gameId);
    this.send({ event: { $case: 'gameEnded', value: { gameId } } });
  }

  /** Reports a finished game's result for its ladder (issue 12); answered by a GameResultAck or `rejected`. */
  reportResult(result: GameResult): void {
    this.send({ event: { $case: 'gameResult', value: result } });
  }

  setOpen(gameId: string, open: boolean): void {
    this.send(open ? { event: { $case: 'gameOpened', value: { gameId } } } : { event: { $case: 'gameClosed', value: { gameId } } });
  }

  setAttributes(gameId: string, attributes: Record<string, PlainValue>): void {
    this.send({ event: { $case: 'gameAttributesChanged', value: { gameId, matchableAttributes: wireAttributes(attributes) } } });
  }

  setCapacity(maxGames: number, maxStartsPerSecond = 0): void {
    this.send({ event: { $case: 'capacityChanged', value: { capacity: { maxGames, maxStartsPerSecond } } } });
  }

  /** Sends a report now, or with the others of this tick when batching. */
  send(message: ServerMessage): void {
    if (this.outbox) this.outbox.push(message);
    else this.write(message);
  }

  private write(message: ServerMessage): void {
    if (this.ended === undefined) this.stream?.write(message);
  }

  /** Hangs up, like a server process that exits. */
  close(): void {
    this.outbox?.flush();
    this.stream?.cancel();
    this.client.close();
  }
}
