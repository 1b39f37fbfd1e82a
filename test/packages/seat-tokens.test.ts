import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionError, GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import { TestCoordinator } from '../integration/harness.js';
import { seatToken } from '../../src/security/seat-tokens.js';

const YAML = `
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4, reservationMs: 10000 }
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 20 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 1000 }]
  - name: squads
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 5
      batch: { maxTickets: 100, intervalMs: 20 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 1000 }]
`;

/**
 * A reservation token per seat: every player placed by one game creation (both of a duel, the ten
 * of a 5v5, two co-op tickets in one new game) presents its own, and the game-server SDK's admission
 * lets a player in with its own token only, so a player who knows another's id cannot take its seat.
 */
describe('reservation tokens are per seat', () => {
  let coordinator: TestCoordinator;
  let server: GameServer;
  let matchmaker: Matchmaker;

  beforeAll(async () => {
    coordinator = await TestCoordinator.start(YAML);
    server = new GameServer({ addresses: coordinator.address, serverId: 'eu-1', endpoint: 'eu-1:7777', attributes: { region: 'eu' }, capacity: { maxGames: 10 }, tokenGraceMs: 200, createGame: () => {} });
    await server.start();
    matchmaker = new Matchmaker({ addresses: coordinator.address });
  });
  afterAll(async () => {
    matchmaker.close();
    server.close();
    await coordinator.stop();
  });

  /** Each ticket's assignment; every player's token is distinct, and another's token is refused at its seat. */
  async function checkSeats(tickets: { party: string[]; template: string; matchable?: Record<string, number> }[]) {
    const assignments = await Promise.all(
      tickets.map((t) => matchmaker.find({ template: t.template, party: t.party.map((p) => (t.template === 'coop' ? p : { playerId: p, score: 1500 })), partition: { region: 'eu' }, ...(t.matchable && { matchable: t.matchable }) }).assignment),
    );
    expect(new Set(assignments.map((a) => a.gameId)).size).toBe(1);
    const gameId = assignments[0]!.gameId;
    const tokens = new Map<string, string>();
    tickets.forEach((t, i) => {
      for (const playerId of t.party) tokens.set(playerId, assignments[i]!.seatTokens[playerId]!);
      expect(assignments[i]!.reservationToken).toBe(assignments[i]!.seatTokens[t.party[0]!]);
    });
    expect(new Set(tokens.values()).size).toBe(tokens.size);
    const players = [...tokens.keys()];
    // The first player tries the second's seat with its own token: refused.
    const stolen = await server.admit(gameId, players[1]!, tokens.get(players[0]!)!).catch((e: unknown) => e);
    expect(stolen).toBeInstanceOf(AdmissionError);
    for (const [playerId, token] of tokens) await server.admit(gameId, playerId, token);
    expect([...server.games.get(gameId)!.players].sort()).toEqual(players.sort());
  }

  it('the two players of a duel', () => checkSeats([{ template: 'duel', party: ['d1'] }, { template: 'duel', party: ['d2'] }]), 20_000);

  it('the ten players of a 5v5', () => checkSeats(Array.from({ length: 10 }, (_, i) => ({ template: 'squads', party: [`s${i}`] }))), 20_000);

  it('two co-op tickets in one new game, and a party of two', () => checkSeats([{ template: 'coop', party: ['c1', 'c2'], matchable: {} }, { template: 'coop', party: ['c3'] }]), 20_000);

  it('a seat token gives away neither the game token nor another seat\'s', () => {
    expect(seatToken('game', 'alice')).not.toBe(seatToken('game', 'bob'));
    expect(seatToken('game', 'alice')).not.toContain('game');
    expect(seatToken('game', 'alice')).toHaveLength(32);
  });
});
