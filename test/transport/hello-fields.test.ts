import { describe, expect, it } from 'vitest';
import { MatchmakingError } from '../../src/errors/index.js';
import type { Hello } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { decodeHello } from '../../src/transport/grpc/codec.js';

const hello = (pendingCreations: string[]): Hello => ({
  serverId: 's1',
  endpoint: 's1:7777',
  attributes: {},
  templates: [],
  capacity: { maxGames: 4, maxStartsPerSecond: 0 },
  runningGames: [],
  pendingCreations,
});

const refusal = (wire: Hello) => {
  try {
    decodeHello(wire, 0);
  } catch (error) {
    return error instanceof MatchmakingError ? `${error.code} ${error.message}` : String(error);
  }
  return 'accepted';
};

/** hello.pending_creations: the orders a reconnecting server is still creating. */
describe('a hello listing its pending creations', () => {
  it('passes them on to the core, and none when there are none', () => {
    expect(decodeHello(hello(['r1', 'r2']), 0).pendingCreations).toEqual(['r1', 'r2']);
    expect(decodeHello(hello([]), 0).pendingCreations).toBeUndefined();
  });

  it('an empty or overlong id, or more orders than a server may run, is INVALID_ARGUMENT naming the field', () => {
    expect(refusal(hello(['r1', '']))).toBe('INVALID_ARGUMENT hello.pending_creations[1]: must not be empty');
    expect(refusal(hello(['x'.repeat(1000)]))).toMatch(/^INVALID_ARGUMENT hello\.pending_creations\[0\]: 1000 characters; at most \d+$/);
    expect(refusal(hello(Array.from({ length: 100_001 }, (_, i) => `r${i}`)))).toMatch(/^INVALID_ARGUMENT hello\.pending_creations: 100001 orders; at most 100000$/);
  });
});
