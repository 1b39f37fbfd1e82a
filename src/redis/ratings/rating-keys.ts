import { ROOT } from '../keys.js';

/**
 * Keys of one rating ladder, all tagged `{r:<ladder>}`: a result's script touches one Redis
 * Cluster slot, and ladders spread over the masters.
 */
export const ladderKeys = (ladder: string) => {
  if (ladder === '' || ladder.includes('{') || ladder.includes('}')) throw new RangeError(`ladder must be non-empty and without braces, got "${ladder}"`);
  const base = `${ROOT}:{r:${ladder}}`;
  return {
    /** gameId -> at: a game's result is applied once, whichever node reports it. */
    results: `${base}:results`,
    /** player -> "<revision> <rating JSON>". */
    ratings: `${base}:ratings`,
    /** The board: players scored by -standing, so ZRANK is the 0-based rank (ties by player id). */
    board: `${base}:board`,
    /** One entry per change, followed by every node's mirror. */
    changes: `${base}:changes`,
    /** Changes so far: a follower whose next change is not the one after its last missed some. */
    version: `${base}:version`,
    /** Prefix of each player's history list, newest first. */
    historyPrefix: `${base}:h:`,
  };
};
