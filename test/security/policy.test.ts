import { describe, expect, it } from 'vitest';
import { SecurityError } from '../../src/security/errors.js';
import { classifyPath } from '../../src/security/roles/methods.js';
import { authorize, METHOD_ROLES, type SecuredRequest } from '../../src/security/roles/policy.js';
import { TicketOwnership } from '../../src/security/roles/ticket-ownership.js';
import type { Principal } from '../../src/security/tokens/principal.js';
import type { FindGameRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';

const server: Principal = { role: 'gameServer', subject: 'eu-1', serverId: 'eu-1' };
const alice: Principal = { role: 'player', subject: 'alice', playerIds: ['alice'] };
const partyLeader: Principal = { role: 'player', subject: 'dana', playerIds: ['dana'], partyClaim: { partyId: 'p', members: ['dana', 'erin'] } };
const gateway: Principal = { role: 'gateway', subject: 'gw' };
const admin: Principal = { role: 'admin', subject: 'ops' };

const find = (...players: string[]): FindGameRequest => ({
  ticketId: 't',
  template: '',
  party: players.map((playerId) => ({ playerId })),
  partitionAttributes: {},
  matchableAttributes: {},
  latenciesMs: {},
  preferredMaps: [],
  vetoedMaps: [],
});

/** One request per method, valid for the role that may call it. */
const requests: Record<keyof typeof METHOD_ROLES, SecuredRequest> = {
  Connect: { method: 'Connect', message: { event: { $case: 'gameEnded', value: { gameId: 'g' } } } },
  FindGame: { method: 'FindGame', message: find('alice') },
  FindGames: { method: 'FindGames', message: { request: { $case: 'find', value: find('alice') } } },
  CancelFind: { method: 'CancelFind', message: { ticketId: 't' } },
  RespondToMatch: { method: 'RespondToMatch', message: { ticketId: 't', matchId: 'm', accept: true } },
  QueryStats: { method: 'QueryStats', message: {} },
  Drain: { method: 'Drain' },
  ReloadConfig: { method: 'ReloadConfig' },
  GetRating: { method: 'GetRating', message: {} },
  Leaderboard: { method: 'Leaderboard', message: {} },
  PlayerRank: { method: 'PlayerRank', message: {} },
};

function outcome(principal: Principal | undefined, request: SecuredRequest): string {
  try {
    authorize(principal, request);
    return 'OK';
  } catch (error) {
    if (!(error instanceof SecurityError)) throw error;
    return error.code;
  }
}

describe('the role table: every role against every method', () => {
  const table: [string, Principal | undefined, Record<keyof typeof METHOD_ROLES, string>][] = [
    ['gameServer', server, { Connect: 'OK', FindGame: 'PERMISSION_DENIED', FindGames: 'PERMISSION_DENIED', CancelFind: 'PERMISSION_DENIED', RespondToMatch: 'PERMISSION_DENIED', QueryStats: 'PERMISSION_DENIED', Drain: 'PERMISSION_DENIED', ReloadConfig: 'PERMISSION_DENIED', GetRating: 'OK', Leaderboard: 'PERMISSION_DENIED', PlayerRank: 'PERMISSION_DENIED' }],
    ['player', alice, { Connect: 'PERMISSION_DENIED', FindGame: 'OK', FindGames: 'OK', CancelFind: 'OK', RespondToMatch: 'OK', QueryStats: 'PERMISSION_DENIED', Drain: 'PERMISSION_DENIED', ReloadConfig: 'PERMISSION_DENIED', GetRating: 'OK', Leaderboard: 'OK', PlayerRank: 'OK' }],
    ['gateway', gateway, { Connect: 'PERMISSION_DENIED', FindGame: 'OK', FindGames: 'OK', CancelFind: 'OK', RespondToMatch: 'OK', QueryStats: 'PERMISSION_DENIED', Drain: 'PERMISSION_DENIED', ReloadConfig: 'PERMISSION_DENIED', GetRating: 'OK', Leaderboard: 'OK', PlayerRank: 'OK' }],
    ['admin', admin, { Connect: 'PERMISSION_DENIED', FindGame: 'PERMISSION_DENIED', FindGames: 'PERMISSION_DENIED', CancelFind: 'PERMISSION_DENIED', RespondToMatch: 'PERMISSION_DENIED', QueryStats: 'OK', Drain: 'OK', ReloadConfig: 'OK', GetRating: 'OK', Leaderboard: 'OK', PlayerRank: 'OK' }],
    ['nobody', undefined, { Connect: 'UNAUTHENTICATED', FindGame: 'UNAUTHENTICATED', FindGames: 'UNAUTHENTICATED', CancelFind: 'UNAUTHENTICATED', RespondToMatch: 'UNAUTHENTICATED', QueryStats: 'UNAUTHENTICATED', Drain: 'UNAUTHENTICATED', ReloadConfig: 'UNAUTHENTICATED', GetRating: 'UNAUTHENTICATED', Leaderboard: 'UNAUTHENTICATED', PlayerRank: 'UNAUTHENTICATED' }],
  ];
  for (const [name, principal, expected] of table) {
    it(name, () => {
      const got = Object.fromEntries(Object.entries(requests).map(([m, r]) => [m, outcome(principal, r)]));
      expect(got).toEqual(expected);
    });
  }

  it('names what is missing', () => {
    expect(() => authorize(undefined, requests.Connect)).toThrow(/Connect: a verified client certificate is required/);
    expect(() => authorize(undefined, requests.FindGame)).toThrow(/FindGame: a bearer token is required/);
    expect(() => authorize(alice, requests.QueryStats)).toThrow(/QueryStats: role player may not call it \(allowed: admin\)/);
  });
});

describe('game server identity', () => {
  const hello = (serverId: string): SecuredRequest => ({
    method: 'Connect',
    message: { event: { $case: 'hello', value: { serverId, endpoint: 'e', attributes: {}, templates: [], runningGames: [], pendingCreations: [] } } },
  });

  it('accepts a hello carrying the certificate identity', () => {
    expect(outcome(server, hello('eu-1'))).toBe('OK');
  });

  it("refuses a hello with another server's id, naming both", () => {
    expect(() => authorize(server, hello('eu-2'))).toThrow(/hello.server_id: "eu-2" is not the certificate's identity "eu-1"/);
    expect(outcome(server, hello('eu-2'))).toBe('PERMISSION_DENIED');
  });

  it('refuses a hello when the certificate names no identity', () => {
    expect(outcome({ role: 'gameServer', subject: '?' }, hello('eu-1'))).toBe('UNAUTHENTICATED');
  });
});

describe('players act only for the players their token covers', () => {
  it('alice cannot find for bob, alone or in a party', () => {
    expect(() => authorize(alice, { method: 'FindGame', message: find('bob') })).toThrow(/FindGame.party: the token does not cover player "bob"/);
    expect(outcome(alice, { method: 'FindGame', message: find('alice', 'bob') })).toBe('PERMISSION_DENIED');
    expect(outcome(alice, { method: 'FindGames', message: { request: { $case: 'find', value: find('bob') } } })).toBe('PERMISSION_DENIED');
  });

  it('a party claim covering every member allows the party, and no one outside it', () => {
    expect(outcome(partyLeader, { method: 'FindGame', message: find('dana', 'erin') })).toBe('OK');
    expect(outcome(partyLeader, { method: 'FindGame', message: find('dana', 'erin', 'frank') })).toBe('PERMISSION_DENIED');
  });

  it('gateways submit for anyone', () => {
    expect(outcome(gateway, { method: 'FindGame', message: find('bob', 'carol') })).toBe('OK');
  });
});

describe('TicketOwnership', () => {
  const alicesTicket = TicketOwnership.ownerOf(alice, ['alice']);
  const partyTicket = TicketOwnership.ownerOf(partyLeader, ['dana', 'erin']);
  const bob: Principal = { role: 'player', subject: 'bob', playerIds: ['bob'] };

  it('the owner and gateways may cancel or resume; another player may not', () => {
    expect(TicketOwnership.mayActOn(alice, alicesTicket)).toBe(true);
    expect(TicketOwnership.mayActOn(gateway, alicesTicket)).toBe(true);
    expect(TicketOwnership.mayActOn(bob, alicesTicket)).toBe(false);
    expect(TicketOwnership.mayActOn(admin, alicesTicket)).toBe(false);
    expect(TicketOwnership.mayActOn(server, alicesTicket)).toBe(false);
    expect(() => TicketOwnership.check(bob, alicesTicket, 't-1', 'cancel')).toThrow(/ticket_id "t-1": only its owner may cancel it \(you are player "bob"\)/);
  });

  it('a player covering the whole party may act on it; one member alone may not', () => {
    expect(TicketOwnership.mayActOn({ role: 'player', subject: 'x', playerIds: ['dana', 'erin'] }, partyTicket)).toBe(true);
    expect(TicketOwnership.mayActOn({ role: 'player', subject: 'erin', playerIds: ['erin'] }, partyTicket)).toBe(false);
  });
});

describe('classifyPath', () => {
  it('knows the secured, public and admin-only paths, and nothing else', () => {
    expect(classifyPath('/gamefactory.v1.Matchmaker/FindGame')).toEqual({ kind: 'secured', method: 'FindGame' });
    expect(classifyPath('/gamefactory.v1.Admin/Drain', '/gamefactory.v1.Admin/Drain')).toEqual({ kind: 'secured', method: 'Drain' });
    expect(classifyPath('/grpc.health.v1.Health/Check')).toEqual({ kind: 'public' });
    expect(classifyPath('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo')).toEqual({ kind: 'adminOnly' });
    expect(classifyPath('/evil.Service/Do')).toEqual({ kind: 'unknown' });
  });
});
