import type { CommandTable } from './command.js';
import { hashCommands } from './hashes.js';
import { keyCommands } from './keys.js';
import { listCommands } from './lists.js';
import { setCommands } from './sets.js';
import { sortedSetCommands } from './sorted-sets.js';
import { streamGroupCommands } from './stream-groups.js';
import { streamCommands } from './streams.js';
import { stringCommands } from './strings.js';

/** Every data command, by upper-case name (the server adds EVAL, SCRIPT, PUBLISH, MULTI's EXEC). */
export const DATA_COMMANDS: CommandTable = {
  ...keyCommands,
  ...stringCommands,
  ...hashCommands,
  ...setCommands,
  ...sortedSetCommands,
  ...listCommands,
  ...streamCommands,
  ...streamGroupCommands,
};

export type { CommandContext, CommandSpec, CommandTable } from './command.js';
