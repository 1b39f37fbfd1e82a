import { credentials as grpcCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import { Backoff, RatingsReader, retryAfterMs, wireAttributes, type PlainValue } from '@gamefactory/protocol';
import type { Rating } from '@gamefactory/protocol/v1/ratings';
import type { CoordinatorMessage, CreateGame, GameServerLinkClient, Hello, ServerMessage } from '@gamefactory/protocol/v1/game_server_link';
import { BackfillRequests, type BackfillHandle, type BackfillOptions } from './backfill-requests.js';
import { gameOrder, type GameOrder } from './game-order.js';
import type { Capacity, Connected, GameServerEvents, GameServerOptions } from './game-server-options.js';
import { HostedGames, type HostedGame } from './hosted-games.js';
import { linkClient, LinkStream } from './link-stream.js';
import { ResultReports, type ResultAck } from './result-reports.js';

/** Codes after which reconnecting cannot help: the server itself must change. */
const FINAL = new Set([status.ABORTED, status.INVALID_ARGUMENT, status.FAILED_PRECONDITION, status.PERMISSION_DENIED, status.UNAUTHENTICATED]);

/**
 * A game server's link to the gamefactory coordinator. It connects and advertises its capacity,
 * creates a game per order through `createGame`, checks the tokens of arriving players (`admit`),
 * reports joins, leaves, ends and results, reconnects with backoff (to the same or another node)
 * re-announcing its running games, and drains on shutdown.
 */
export class GameServer extends EventEmitter<GameServerEvents> {
  private readonly addresses: readonly string[];
  private readonly clients = new Map<string, GameServerLinkClient>();
  private readonly hosted: HostedGames;
  private readonly results: ResultReports;
  private readonly backfills: BackfillRequests;
  /** Request ids of CreateGame orders whose game `createGame` is still making. */
  private readonly creating = new Set<string>();
  private readonly ratings: RatingsReader;
  private readonly backoff: Backoff | undefined;
  private capacity: Capacity;
  private link: LinkStream | undefined;
  private node = 0;
  private retry: NodeJS.Timeout | undefined;
  private nextGame = 1;
  private draining = false;
  private done = false;
  private firstWelcome: { resolve: (c: Connected) => void; reject: (e: Error) => void } | undefined;
  private started: Promise<Connected> | undefined;

  constructor(private readonly options: GameServerOptions) {
    super();
    this.addresses = typeof options.addresses === 'string' ? [options.addresses] : [...options.addresses];
    if (this.addresses.length === 0) throw new Error('addresses: name at least one coordinator (host:port)');
    this.capacity = options.capacity;
    this.ratings = new RatingsReader(() => this.addresses[this.node % this.addresses.length]!, options.credentials ?? grpcCredentials.createInsecure(), options.channelOptions ?? {});
    this.hosted = new HostedGames(Date.now, options.tokenGraceMs ?? 5000, (gameId, playerId) =>
      this.report({ event: { $case: 'playerJoined', value: { gameId, playerId } } }),
    );
    this.results = new ResultReports(
      (result) => this.report({ event: { $case: 'gameResult', value: result } }),
      options.resultTimeoutMs ?? 10_000,
    );
    this.backfills = new BackfillRequests(options.serverId, (request) => this.report({ event: { $case: 'requestBackfill', value: request } }));
    this.backoff = options.reconnect === false ? undefined : new Backoff(options.reconnect);
    for (const game of options.runningGames ?? []) this.hosted.add({ ...game, matchable: game.matchable ?? {}, players: game.playerIds });
  }

  /** Connects (retrying as configured); resolves at the first welcome. */
  start(): Promise<Connected> {
    if (this.done) return Promise.reject(new Error('the game server is closed'));
    if (!this.started) {
      this.started = new Promise<Connected>((resolve, reject) => (this.firstWelcome = { resolve, reject }));
      this.connect();
    }
    return this.started;
  }

  /** The games running here, as the coordinator will be told after a reconnect. */
  get games(): ReadonlyMap<string, HostedGame> {
    return this.hosted.view;
  }

  get connected(): boolean {
    return this.link !== undefined && !this.link.ended;
  }

  /**
   * A player arrived at `gameId` with the reservation token of its assignment. Resolves once the
   * seat is checked and the join reported; waits up to `tokenGraceMs` for a seat not yet
   * announced; rejects with an AdmissionError.
   */
  admit(gameId: string, playerId: string, token: string): Promise<void> {
    return this.hosted.admit(gameId, playerId, token);
  }

  leave(gameId: string, playerId: string): void {
    if (this.hosted.leave(gameId, playerId)) this.report({ event: { $case: 'playerLeft', value: { gameId, playerId } } });
  }

  /** Whether the game takes drop-in players. */
  setOpen(gameId: string, open: boolean): void {
    if (!this.hosted.setOpen(gameId, open)) return;
    this.report(open ? { event: { $case: 'gameOpened', value: { gameId } } } : { event: { $case: 'gameClosed', value: { gameId } } });
  }

  /** The game's complete new set of matchable attributes (act, quest...). */
  setAttributes(gameId: string, matchable: Record<string, PlainValue>): void {
    if (!this.hosted.setMatchable(gameId, matchable)) return;
    this.report({ event: { $case: 'gameAttributesChanged', value: { gameId, matchableAttributes: wireAttributes(matchable) } } });
  }

  /**
   * Competitive backfill: asks the coordinator to fill the open seats of a running game, naming the
   * players who remain and their teams. `queued` resolves once the request is stored; `filled`
   * resolves with the newcomers (their seats are reserved here already, as `seatsReserved` also
   * says) or rejects with a BackfillEndedError (cancelled, expired, game ended, refused).
   */
  requestBackfill(gameId: string, options: BackfillOptions): BackfillHandle {
    return this.backfills.request(gameId, options);
  }

  /** Stops a backfill request; its `filled` rejects with end 'cancelled'. False while disconnected. */
  cancelBackfill(gameId: string, backfillId: string): boolean {
    return this.report({ event: { $case: 'cancelBackfill', value: { gameId, backfillId } } });
  }

  endGame(gameId: string): void {
    this.backfills.gameEnded(gameId);
    if (!this.hosted.end(gameId)) return;
    this.report({ event: { $case: 'gameEnded', value: { gameId } } });
    if (this.draining) this.shrinkToRunningGames();
  }

  /** A finished game's result for its ladder; kept and sent again across reconnects until answered. */
  reportResult(
    gameId: string,
    result: { teams: readonly { playerIds: readonly string[]; rank: number }[]; durationSeconds: number; leftEarly?: readonly string[] },
  ): Promise<ResultAck> {
    return this.results.report({
      gameId,
      teams: result.teams.map((t) => ({ playerIds: [...t.playerIds], rank: t.rank })),
      durationSeconds: result.durationSeconds,
      leftEarly: [...(result.leftEarly ?? [])],
    });
  }

  setCapacity(capacity: Capacity): void {
    this.capacity = capacity;
    this.report({ event: { $case: 'capacityChanged', value: { capacity: wireCapacity(capacity) } } });
  }

  /** Sends a message as is: a report this SDK has no method for. False while disconnected. */
  send(message: ServerMessage): boolean {
    return this.report(message);
  }

  /**
   * Stops taking games (capacity down to the games running, every game closed to drop-ins, new
   * orders refused), waits for the running games to end (`endGame`) or `timeoutMs`, then hangs up.
   * Resolves with the games still running at the end.
   */
  async drain(options: { timeoutMs?: number } = {}): Promise<{ unfinished: string[] }> {
    this.draining = true;
    this.shrinkToRunningGames();
    for (const game of this.hosted.view.values()) if (game.open) this.setOpen(game.gameId, false);
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    while (this.hosted.view.size > 0 && Date.now() < deadline && !this.done) await new Promise((r) => setTimeout(r, 50));
    const unfinished = [...this.hosted.view.keys()];
    this.close();
    return { unfinished };
  }

  /** Hangs up now; nothing reconnects. */
  /**
   * A player's rating on a ladder (Ratings.GetRating), e.g. to show it in the game: `mean` and
   * `deviation` in the ladder's units, `standing` what its leaderboard orders by; undefined for a
   * player not rated yet.
   */
  rating(ladder: string, playerId: string): Promise<Rating | undefined> {
    return this.ratings.rating(ladder, playerId);
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.ratings.close();
    clearTimeout(this.retry);
    this.link?.close();
    this.link = undefined;
    this.finish(undefined);
  }

  private connect(): void {
    this.retry = undefined;
    if (this.done) return;
    const address = this.addresses[this.node % this.addresses.length]!;
    const link: LinkStream = new LinkStream(
      this.client(address),
      this.hello(),
      {
        order: (message) => this.onOrder(message),
        raw: (message) => this.emit('message', message),
        ended: (error) => this.onEnded(link, address, error),
      },
      { batch: this.options.batch !== false, answerKeepalives: this.options.answerKeepalives !== false },
    );
    this.link = link;
    link.welcome.then((welcome) => {
      if (this.link !== link) return;
      this.backoff?.reset();
      this.results.resend();
      const connected: Connected = { address, factories: welcome.factories, keepaliveIntervalMs: welcome.keepaliveIntervalMs };
      this.firstWelcome?.resolve(connected);
      this.firstWelcome = undefined;
      this.emit('connected', connected);
    }, () => {});
  }

  private onEnded(link: LinkStream, address: string, error: ServiceError | null): void {
    if (this.link !== link) return;
    this.link = undefined;
    if (this.done) return;
    const final = error !== null && FINAL.has(error.code);
    const giveUp = final || !this.backoff || (this.draining && this.hosted.view.size === 0);
    const sameNode = this.addresses.length === 1;
    if (!giveUp) this.node++;
    const retryInMs = giveUp ? undefined : Math.max(this.backoff!.next(), sameNode ? (retryAfterMs(error?.metadata) ?? 0) : 0);
    this.emit('disconnected', { address, code: error?.code, details: error?.details ?? 'the coordinator ended the stream', retryInMs });
    if (retryInMs === undefined) {
      this.done = true;
      this.finish(error ?? undefined);
    } else {
      this.retry = setTimeout(() => this.connect(), retryInMs);
    }
  }

  private finish(error: ServiceError | undefined): void {
    this.hosted.rejectAll();
    this.results.rejectAll(error ? error.details : 'the game server closed');
    this.backfills.rejectAll(error ? error.details : 'the game server closed');
    for (const client of this.clients.values()) client.close();
    this.firstWelcome?.reject(error ?? new Error('the game server closed before connecting'));
    this.firstWelcome = undefined;
    this.emit('closed', error);
  }

  private onOrder(message: CoordinatorMessage): void {
    const order = message.order;
    switch (order?.$case) {
      case 'createGame':
        return this.onCreate(order.value);
      case 'reserveSeats': {
        const { gameId, expiresInMs } = order.value;
        const seats = order.value.seats.map((s) => ({ playerId: s.playerId, token: s.reservationToken }));
        this.hosted.reserve(gameId, seats, expiresInMs);
        if (order.value.backfillId !== '') this.backfills.seatsReserved(order.value);
        if (this.hosted.view.has(gameId)) this.emit('seatsReserved', { gameId, playerIds: seats.map((s) => s.playerId), seats, expiresInMs });
        return;
      }
      case 'backfillStatus':
        return this.backfills.status(order.value);
      case 'gameResultAck':
        return this.results.acknowledged(order.value);
      case 'rejected':
        this.results.refused(order.value.reason);
        this.emit('rejected', order.value.reason);
        return;
    }
  }

  private onCreate(order: CreateGame): void {
    const refuse = (reason: string): void => {
      this.creating.delete(order.requestId);
      this.report({ event: { $case: 'gameCreationFailed', value: { requestId: order.requestId, reason } } });
    };
    if (this.draining) return refuse('the server is draining');
    const plain = gameOrder(order);
    let made: string | void | Promise<string | void>;
    try {
      made = this.options.createGame(plain);
    } catch (error) {
      return refuse(error instanceof Error ? error.message : String(error));
    }
    if (made instanceof Promise) {
      // Listed in the hello if the link drops before the game is made (see hello()).
      this.creating.add(order.requestId);
      made.then((id) => this.created(order, plain, id), (error: unknown) => refuse(error instanceof Error ? error.message : String(error)));
    } else this.created(order, plain, made);
  }

  private created(order: CreateGame, plain: GameOrder, id: string | void): void {
    this.creating.delete(order.requestId);
    const gameId = id || `${this.options.serverId}-g${this.nextGame++}`;
    const holdMs = this.options.seatHoldMs ?? 60_000;
    const seats = plain.players.map((p) => ({ playerId: p.playerId, token: p.token }));
    this.hosted.add({ gameId, factory: order.factory, requestId: order.requestId, matchable: { ...plain.matchable } });
    this.hosted.reserve(gameId, seats, holdMs);
    this.report({ event: { $case: 'gameCreated', value: { requestId: order.requestId, gameId } } });
    this.emit('seatsReserved', { gameId, playerIds: seats.map((s) => s.playerId), seats, expiresInMs: holdMs });
  }

  /** While draining: no free slot, but room for every game still running (a hello must fit them). */
  private shrinkToRunningGames(): void {
    this.setCapacity({ maxGames: this.hosted.view.size, maxStartsPerSecond: this.capacity.maxStartsPerSecond });
  }

  private report(message: ServerMessage): boolean {
    if (!this.link || this.link.ended) return false;
    this.link.send(message);
    return true;
  }

  private hello(): Hello {
    return {
      serverId: this.options.serverId,
      endpoint: this.options.endpoint,
      attributes: wireAttributes(this.options.attributes),
      templates: [...(this.options.templates ?? [])],
      capacity: wireCapacity(this.capacity),
      runningGames: [...this.hosted.view.values()].map((g) => ({
        gameId: g.gameId,
        factory: g.factory,
        matchableAttributes: wireAttributes(g.matchable),
        playerIds: [...g.players],
        open: g.open,
        startedAtUnixMs: BigInt(g.startedAt),
        requestId: g.requestId,
      })),
      // Orders still being created when the link dropped: their answer comes on this link, and
      // the coordinator waits for it instead of ordering the same players another game.
      pendingCreations: [...this.creating],
      acceptsBatches: this.options.batch !== false,
    };
  }

  private client(address: string): GameServerLinkClient {
    let client = this.clients.get(address);
    if (!client) {
      client = linkClient(address, this.options.credentials ?? grpcCredentials.createInsecure(), this.options.channelOptions ?? {});
      this.clients.set(address, client);
    }
    return client;
  }
}

function wireCapacity(capacity: Capacity) {
  return { maxGames: capacity.maxGames, maxStartsPerSecond: capacity.maxStartsPerSecond ?? 0 };
}
