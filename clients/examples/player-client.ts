import { credentials } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { findGameRequest } from '../lib/find-game.js';
import { MatchmakerClient, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { parsePairs } from '../lib/plain-pairs.js';
import { describeUpdate, updateAsJson } from '../lib/describe-update.js';

/** An example player client: FindGame, printing every update until the assignment (as text, or JSON lines with `json`). */
export async function runExampleClient(opts: { coordinator: string; template: string; player: string[]; partition: string[]; match: string[]; json?: boolean }) {
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
    call.on('data', (update: FindGameUpdate) => console.log(opts.json ? updateAsJson(update) : describeUpdate(update)));
    call.on('error', (error: Error) => {
      console.error(opts.json ? JSON.stringify({ error: error.message }) : `FindGame failed: ${error.message}`);
      process.exitCode = 1;
      resolve();
    });
    call.on('end', () => resolve());
  });
  client.close();
}
