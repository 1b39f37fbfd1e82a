import { status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameServer } from '../../packages/game-server-sdk/src/index.js';
import { DIABLO_YAML, TestCoordinator } from './harness.js';

/**
 * A game server's hello decides what it hosts: an axis it misnames would take every value (a
 * server with `verison: v201` hosting every version's games), and a value no template allows would
 * leave it connected hosting nothing. Both are refused at hello, over gRPC, naming the key and
 * what is known, unless `servers.unknownAttributes: warn` says to accept them.
 */
const YAML = `${DIABLO_YAML}  - name: legacy
    partitioning: { version: [v100] }
    cooperative: { maxPlayers: 2 }
`;

describe('hello attributes', () => {
  let strict: TestCoordinator;
  let lenient: TestCoordinator;
  const opened: GameServer[] = [];

  beforeAll(async () => {
    strict = await TestCoordinator.start(YAML);
    lenient = await TestCoordinator.start(YAML.replace('servers: { keepaliveIntervalMs: 1000 }', 'servers: { keepaliveIntervalMs: 1000, unknownAttributes: warn }'));
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await strict.stop();
    await lenient.stop();
  });

  const start = (coordinator: TestCoordinator, serverId: string, attributes: Record<string, string | boolean>, templates?: string[]) => {
    const server = new GameServer({ addresses: coordinator.address, serverId, endpoint: `${serverId}:7777`, attributes, ...(templates && { templates }), capacity: { maxGames: 1 }, createGame: () => {} });
    opened.push(server);
    return server.start();
  };
  const refusal = (p: Promise<unknown>) => p.then(() => undefined, (error: ServiceError) => error);

  it('a key no template partitions by: INVALID_ARGUMENT naming it and the known keys', async () => {
    const error = await refusal(start(strict, 'typo-key', { verison: 'v201' }));
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.details).toContain('hello.attributes[verison]: no template partitions by "verison" (known keys: difficulty, hardcore, version)');
    expect(strict.running.coordinator.view.snapshot().servers).toBe(0);
  });

  it('a value no template allows: INVALID_ARGUMENT naming the key and the allowed values', async () => {
    const error = await refusal(start(strict, 'typo-value', { version: 'v999' }));
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.details).toContain('hello.attributes[version]: "v999" is allowed by no template (allowed: v201, v202, v100)');
  });

  it('attributes that leave the offered templates no factory: refused, saying so', async () => {
    const none = await refusal(start(strict, 'hosts-nothing', { version: 'v100' }, ['diablo']));
    expect(none?.code).toBe(status.INVALID_ARGUMENT);
    expect(none?.details).toContain('hello: this server would host no factory: none of the templates it offers (diablo) allows all of its attributes together');
    // A key of another template is no typo: duel has no difficulty axis and takes the server whole.
    expect((await start(strict, 'duel-only', { difficulty: 'hard' }, ['duel'])).factories).toEqual(['duel/version=v201', 'duel/version=v202']);
  });

  it('known keys and values connect as before', async () => {
    const { factories } = await start(strict, 'good', { version: 'v201' });
    expect(factories).toHaveLength(5);
  });

  it('servers.unknownAttributes: warn accepts the same hello', async () => {
    const { factories } = await start(lenient, 'typo-key', { verison: 'v201' });
    expect(factories).toHaveLength(11);
  });
});
