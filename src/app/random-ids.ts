import { randomFillSync } from 'node:crypto';

/**
 * 128-bit random ids (creation request ids, reservation tokens) as 32 hex digits, one flat string
 * each. `randomUUID` builds its string from 20 concatenated pieces, and a waiting game creation
 * kept that tree of cons strings for its id and its token, ~28 heap objects per creation (heap
 * snapshot of 100k waiting tickets). The entropy is drawn in blocks, as randomUUID does.
 */
const BLOCK = 16 * 256;
const pool = Buffer.alloc(BLOCK);
let offset = BLOCK;

export function randomId(): string {
  if (offset === BLOCK) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + 16);
  offset += 16;
  return id;
}
