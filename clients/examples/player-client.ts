import { credentials } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { findGameRequest } from '../lib/find-game.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { parsePairs } from '../lib/plain-pairs.js';

/** An example player client: FindGame, printing every update until the assignment. */
export async function runExampleClient(opts: { coordinator: string; template: string; player: string[]; partition: string[]; match: string[] }) {
  const client = new MatchmakerClient(opts.coordinator, credentials.createInsecure());
  const call = client.findGame(
    findGameRequest({
      ticketId: randomUUID(),
      template: opts.template,
      party: opts.player,
      partition: parsePairs(opts.partition),
      matchable: parsePairs(opts.match),
    }),
  );
  await new Promise<void>((resolve) => {
    call.on('data', (update: FindGameUpdate) => console.log(JSON.stringify(update.update, (_k, v) => (typeof v === 'bigint' ? String(v) : v))));
    call.on('error', (error: Error) => {
      console.error(`FindGame failed: ${error.message}`);
      process.exitCode = 1;
      resolve();
    });
    call.on('end', () => resolve());
  });
  client.close();
}
