import { ROOT } from '../keys.js';

/**
 * Keys of the multi-node relay (README "How a ticket crosses nodes"). All of one relay share its
 * hash tag (`{relay}`, or a shard's `{s:<n>}`): every relay script touches one Redis Cluster
 * slot, and the fence is beside every stream and record it guards.
 */
export const relayKeysFor = (tag: string) => {
  const base = `${ROOT}:{${tag}}`;
  return {
    /** The matcher lease (SET NX PX) and its fencing token (INCR). */
    lease: `${base}:lease`,
    fence: `${base}:fence`,
    /** Every node's requests to the matcher owner, read with the consumer group "owner". */
    inbox: `${base}:inbox`,
    /** Waiting tickets (ticketId -> TicketRecord JSON), so a new owner gives them their place back. */
    tickets: `${base}:tickets`,
    /** The owner's answers to one node: ticket updates, server orders. */
    out: (nodeId: string) => `${base}:out:${nodeId}`,
    /** A ticket's assignment, kept for a client that resumes on another node. */
    assigned: (ticketId: string) => `${base}:a:${ticketId}`,
    /** A node's heartbeat (SET PX, renewed by its gateway): lapsed means its game servers are gone. One tag for all, read in one MGET. */
    node: (nodeId: string) => `${ROOT}:{relay}:node:${nodeId}`,
  };
};

/** The keys of one relay: the single matcher's (`{relay}`), or one shard's (`{s:<n>}`, `shardRelayKeys`). */
export type RelayKeys = ReturnType<typeof relayKeysFor>;

export const relayKeys: RelayKeys = relayKeysFor('relay');

/** A shard of factories relayed on its own keys: its owner's scripts touch the shard's slot only. */
export const shardRelayKeys = (shard: number): RelayKeys => relayKeysFor(`s:${shard}`);

export const OWNER_GROUP = 'owner';
