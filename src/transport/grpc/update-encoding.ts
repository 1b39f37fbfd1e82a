import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { Assignment, FindGameUpdate, type Assignment as WireAssignment } from '../../generated/gamefactory/v1/matchmaker.js';

/**
 * FindGameUpdate as the generated encoder writes it, byte for byte, but each assignment encoded
 * once however many tickets it answers: every party of a game is told the same thing (one
 * Assignment object per team, see GameCreations.confirmed, and one wire object for it, see
 * matchmaker.ts), and those updates leave together in one UpdateBatch. A length-delimited field
 * written from the message's bytes is the same as the message written in place, so an update is
 * its ticket id and a copy of its assignment's bytes (~85% of an update's, in the bench's tickets).
 */
export function encodeFindGameUpdate(message: FindGameUpdate, writer: BinaryWriter): BinaryWriter {
  const update = message.update;
  if (update?.$case !== 'batch') return encodeOne(message, writer);
  if (message.ticketId !== '') writer.uint32(10).string(message.ticketId);
  writer.uint32(42).fork(); // batch = 5
  for (const inner of update.value.updates) {
    writer.uint32(10).fork(); // UpdateBatch.updates = 1
    encodeOne(inner, writer);
    writer.join();
  }
  return writer.join();
}

function encodeOne(message: FindGameUpdate, writer: BinaryWriter): BinaryWriter {
  const update = message.update;
  // A route hint (a relayed ticket's first update) is rare: the generated encoder writes it.
  if (update?.$case !== 'assignment' || message.ownerAddress !== undefined) return FindGameUpdate.encode(message, writer);
  if (message.ticketId !== '') writer.uint32(10).string(message.ticketId);
  return writer.uint32(26).bytes(assignmentBytes(update.value)); // assignment = 3
}

/** The last assignment encoded and its bytes: the tickets of a game are answered one after another. */
let lastAssignment: WireAssignment | undefined;
let lastBytes = new Uint8Array(0);
const scratch = new BinaryWriter();

function assignmentBytes(assignment: WireAssignment): Uint8Array {
  if (assignment !== lastAssignment) {
    try {
      lastBytes = Assignment.encode(assignment, scratch).finish();
    } catch (error) {
      scratch.finish(); // empties what half an assignment left in it
      lastAssignment = undefined;
      throw error;
    }
    lastAssignment = assignment;
  }
  return lastBytes;
}
