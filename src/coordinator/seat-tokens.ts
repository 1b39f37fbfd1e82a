import type { Assignment } from './messages.js';

/** The assignment a ticket is told: the game's, with the ticket's players (whose seat tokens the edge gives them). */
export function ticketAssignment(assignment: Assignment, playerIds: readonly string[]): Assignment {
  return { ...assignment, party: playerIds };
}
