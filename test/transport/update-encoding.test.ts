import { BinaryWriter } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FindGameUpdate, type Assignment } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { encodeFindGameUpdate } from '../../src/transport/grpc/update-encoding.js';

const text = fc.string({ unit: 'grapheme', maxLength: 30 });
const assignment: fc.Arbitrary<Assignment> = fc.record({
  gameId: text,
  serverEndpoint: text,
  factory: text,
  reservationToken: text,
  serverId: text,
  created: fc.boolean(),
  map: text,
  region: text,
  team: fc.nat(),
  quality: fc.option(fc.record({ favouriteWinProbability: fc.double(), matchQuality: fc.double(), gapSigma: fc.double() }), { nil: undefined }),
  seatTokens: fc.dictionary(text, text, { maxKeys: 3 }),
});
const single = (assignments: Assignment[]): fc.Arbitrary<FindGameUpdate> =>
  fc.oneof(
    // A relayed ticket's first update names its owner (route hint).
    fc.record({ ticketId: text, update: fc.record({ $case: fc.constant('assignment' as const), value: fc.constantFrom(...assignments) }), ownerAddress: fc.option(text, { nil: undefined }) }, { requiredKeys: ['ticketId', 'update'] }),
    fc.record({ ticketId: text, update: fc.record({ $case: fc.constant('queued' as const), value: fc.record({ factory: text, position: fc.nat(), estimatedWaitMs: fc.nat(), estimateUnknown: fc.boolean() }) }), ownerAddress: fc.option(text, { nil: undefined }) }, { requiredKeys: ['ticketId', 'update'] }),
    fc.record({ ticketId: text, update: fc.record({ $case: fc.constant('error' as const), value: fc.record({ code: fc.nat(16), message: text }) }) }),
    fc.record({ ticketId: text }),
  );
// A few assignment objects shared by many updates, as the parties of one game share theirs.
const message = fc.array(assignment, { minLength: 1, maxLength: 4 }).chain((assignments) =>
  fc.oneof(
    single(assignments),
    fc.record({ ticketId: fc.constantFrom('', 'x'), update: fc.record({ $case: fc.constant('batch' as const), value: fc.record({ updates: fc.array(single(assignments), { maxLength: 40 }) }) }) }),
  ),
);

describe('encodeFindGameUpdate', () => {
  it('writes the bytes the generated encoder writes, batches of shared assignments included', () => {
    const writer = new BinaryWriter();
    fc.assert(
      fc.property(message, (m) => {
        expect(Buffer.from(encodeFindGameUpdate(m, writer).finish())).toEqual(Buffer.from(FindGameUpdate.encode(m).finish()));
      }),
      { numRuns: 2000 },
    );
  });
});
