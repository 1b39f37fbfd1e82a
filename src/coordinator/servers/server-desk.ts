import { playersPerGame } from '../../config/config.js';
import { MatchmakingError, invalidArgument } from '../../errors/index.js';
import type { FactoryRegistry } from '../../factories/factory-registry.js';
import type { CoreContext } from '../core-context.js';
import type { FactoryRuntime } from '../factory-runtime.js';
import type { GameCreations } from '../game-creations.js';
import type { Assignment, RunningGame, ServerChannel, ServerEvent, ServerHello } from '../messages.js';
import type { GameResults } from '../results/game-results.js';
import type { TicketBook } from '../tickets/ticket-book.js';
import type { RestoredTickets } from '../tickets/restored-tickets.js';
import type { TicketDesk } from '../tickets/ticket-desk.js';
import type { BackfillDesk } from '../backfill/backfill-desk.js';
import { OrderedGames } from './ordered-games.js';
import { sortRunningGames } from './running-game-check.js';
import type { RunningGames } from './running-games.js';
import type { ServerRoster } from './server-roster.js';

/**
 * The game-server side of the core: a hello, a report, a departure come in here and are applied
 * to the owners of state (ServerRoster, RunningGames, GameCreations, the factory runtimes); a
 * report the core cannot apply is answered with its reason. The ticket side is TicketDesk's.
 */
export class ServerDesk {
  private readonly ordered: OrderedGames;

  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly roster: ServerRoster,
    private readonly games: RunningGames,
    private readonly creations: GameCreations,
    private readonly book: TicketBook,
    private readonly desk: TicketDesk,
    private readonly results: GameResults,
    restored: RestoredTickets,
    private readonly backfills: BackfillDesk,
  ) {
    this.ordered = new OrderedGames(ctx, registry, roster, games, creations, desk, restored);
  }

  /** A server said hello on `channel`: it replaces an older connection, and its factories, games and slots join. Returns its factories. */
  hello(hello: ServerHello, channel: ServerChannel): string[] {
    const unknown = this.registry.unknownTemplates(hello.templates);
    if (unknown.length > 0) throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    const misnamed = this.registry.attributeProblems(hello.attributes, hello.templates);
    if (misnamed.length > 0) {
      if (this.ctx.config.servers.unknownAttributes !== 'warn') throw new MatchmakingError('INVALID_ARGUMENT', `${misnamed.join('; ')} (servers.unknownAttributes: warn accepts such a hello)`);
      this.ctx.out.warn({ serverId: hello.serverId, problems: misnamed }, 'game server hello accepted despite its attributes (servers.unknownAttributes: warn)');
    }
    const previous = this.roster.get(hello.serverId);
    if (previous) {
      this.ctx.out.warn({ serverId: hello.serverId }, 'a newer connection replaces this server');
      // Orders the newer connection says are unanswered stay in flight: a node re-announcing a
      // server it holds may do so twice, and the first hello's creations are still coming.
      this.remove(hello.serverId, new Set(hello.pendingCreations));
      this.roster.close(previous, new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`));
    }
    const identities = this.registry.hostable(hello.attributes, hello.templates);
    const names = identities.map((i) => i.name);
    this.roster.connect(hello, channel, names);
    this.registry.attach(hello.serverId, identities);
    const { adopted, slotOnly, problems } = sortRunningGames(
      hello,
      names,
      {
        maxPlayers: (factory) => {
          const runtime = this.registry.get(factory);
          return runtime && playersPerGame(runtime.identity.template.strategy);
        },
        matchableProblem: (factory, game) => this.registry.get(factory)?.checkMatchable(game.matchable),
        gameRunning: (gameId) => this.games.get(gameId) !== undefined,
        gameOf: (playerId) => this.games.gameOf(playerId),
      },
      this.ctx.now(),
    );
    for (const p of problems) this.roster.send(hello.serverId, { kind: 'rejected', reason: `hello.running_games[${p.gameId}]: ${p.reason}` });
    const assignments = new Map<string, Assignment>();
    for (const game of adopted) {
      if (!this.ordered.announced(hello.serverId, hello.endpoint, game, assignments)) this.games.adopt(hello.serverId, game);
    }
    this.games.holdSlots(hello.serverId, slotOnly);
    this.ctx.out.info({ serverId: hello.serverId, endpoint: hello.endpoint, factories: names.length, games: adopted.length }, 'game server connected');
    this.ctx.out.event('serverConnected', { serverId: hello.serverId, endpoint: hello.endpoint, factories: names });
    this.creations.serverConnected(hello.serverId, names, hello.capacity, adopted.length + slotOnly.length, hello.sameNode === true);
    this.desk.serverBack(hello.serverId, assignments);
    this.backfills.serverBack(hello.serverId);
    for (const name of names) {
      this.desk.admitParked(name);
      this.desk.offerSeats(name);
    }
    return names;
  }

  /** The server leaves: its games end, its creations in flight go back in line (but those in `stillPending`), its factories may drain. */
  remove(serverId: string, stillPending?: ReadonlySet<string>): void {
    const server = this.roster.remove(serverId)!;
    this.backfills.serverGone(serverId);
    this.games.endAllOn(serverId);
    this.ctx.out.event('serverDisconnected', { serverId });
    this.creations.serverRemoved(serverId, stillPending);
    for (const name of this.registry.detach(serverId, server.factories)) this.ctx.maybeIdle.add(name);
  }

  /** One report from a connected server; returns why it is refused, if it is. */
  report(serverId: string, event: ServerEvent): string | undefined {
    switch (event.kind) {
      case 'gameCreated': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return this.ordered.confirmedLate(serverId, event.requestId, event.gameId) ? undefined : `unknown request_id "${event.requestId}"`;
        const late = this.games.created(serverId, creation, event.gameId);
        if (late === undefined) {
          this.creations.takeBack(creation, 'failed');
          return `game_id "${event.gameId}" is empty or already running`;
        }
        const assignments = this.creations.confirmed(creation, serverId, event.gameId);
        const settings = this.registry.get(creation.factory)?.identity.template.strategy;
        if (late.length > 0 && settings?.kind === 'cooperative') {
          const order = { kind: 'reserveSeats', gameId: event.gameId, playerIds: late, reservationToken: creation.token, expiresInMs: settings.settings.reservationMs } as const;
          this.roster.send(serverId, order, `${creation.token}/late`);
        }
        for (const { ticketId, assignment } of assignments) {
          if (this.book.get(ticketId)?.state.kind === 'placing') this.desk.assign(ticketId, assignment);
        }
        this.desk.offerSeats(creation.factory);
        return undefined;
      }
      case 'gameCreationFailed': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return this.ordered.failedLate(serverId, event.requestId) ? undefined : `unknown request_id "${event.requestId}"`;
        if (event.noFreeSlot) this.ctx.out.debug({ serverId }, 'game server had no free slot for a creation');
        else this.ctx.out.warn({ serverId, reason: event.reason }, 'game creation failed');
        this.creations.takeBack(creation, event.noFreeSlot ? 'full' : 'failed');
        return undefined;
      }
      case 'capacityChanged': {
        const capacity = this.roster.capacityChanged(serverId, event.capacity);
        if (capacity) this.creations.setCapacity(serverId, capacity);
        return undefined;
      }
      case 'gameResult':
        return this.results.report(serverId, event.result);
      // Answered with a BackfillStatus (REFUSED naming the field), never `rejected`.
      case 'requestBackfill':
        this.backfills.request(serverId, event);
        return undefined;
      case 'cancelBackfill':
        this.backfills.cancel(serverId, event.gameId, event.backfillId);
        return undefined;
    }
    if (event.kind === 'gameEnded' && this.games.endSlotOnly(serverId, event.gameId)) {
      this.creations.gameEnded(serverId);
      return undefined;
    }
    const game = this.games.get(event.gameId);
    if (!game || game.serverId !== serverId) return `unknown game_id "${event.gameId}"`;
    const runtime = this.registry.get(game.factory)!;
    switch (event.kind) {
      case 'playerJoined':
        return this.games.joined(game.gameId, event.playerId);
      case 'playerLeft':
        if (this.games.gameOf(event.playerId) !== game.gameId) return `player "${event.playerId}" is not in game "${game.gameId}"`;
        this.games.left(game.gameId, event.playerId);
        this.desk.offerSeats(game.factory);
        return undefined;
      case 'gameAttributesChanged': {
        const problem = runtime.setAttributes(game.gameId, event.matchable);
        if (problem === undefined) this.desk.offerSeats(game.factory);
        return problem;
      }
      case 'gameOpened':
      case 'gameClosed':
        runtime.setOpen(game.gameId, event.kind === 'gameOpened');
        if (event.kind === 'gameOpened') this.desk.offerSeats(game.factory);
        return undefined;
      case 'gameEnded':
        this.backfills.gameEnded(game.gameId);
        this.games.end(game.gameId);
        this.creations.gameEnded(serverId);
        return undefined;
    }
  }
}
