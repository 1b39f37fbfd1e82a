import { ROOT } from '../keys.js';

/**
 * Keys of the multi-node relay (README "How a ticket crosses nodes"). All share the hash tag
 * `{relay}`: every relay script touches one Redis Cluster slot, and the fence is beside every
 * stream and record it guards.
 */
const base = `${ROOT}:{relay}`;
export const relayKeys = {
  /** The matcher lease (SET NX PX) and its fencing token (INCR). */
  lease: `${base}:lease`,
  fence: `${base}:fence`,
  /** Every node's requests to the matcher owner, read with the consumer group "owner". */
  inbox: `${base}:inbox`,
  /** Waiting tickets (ticketId -> TicketRecord JSON), so a new owner gives them their place back. */
  tickets: `${base}:tickets`,
  /** The owner's answers to one node: ticket updates, server orders. */
  out: (nodeId: string) => `${base}:out:${nodeId}`,
  /** A node's heartbeat (SET PX, renewed by its gateway): lapsed means its game servers are gone. */
  node: (nodeId: string) => `${base}:node:${nodeId}`,
  /** A ticket's assignment, kept for a client that resumes on another node. */
  assigned: (ticketId: string) => `${base}:a:${ticketId}`,
};

export const OWNER_GROUP = 'owner';
