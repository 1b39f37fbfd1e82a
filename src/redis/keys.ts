/**
 * Key names. Every key of one factory carries the hash tag `{<factory>}`, so each script on a
 * factory touches one Redis Cluster slot; cross-factory state has a tag of its own.
 */
export const ROOT = 'gf';

/** Braces would end the hash tag early; factory names in factories.yaml never need them. */
function tag(name: string): string {
  if (name.includes('{') || name.includes('}')) throw new RangeError(`name must not contain braces, got "${name}"`);
  return `{${name}}`;
}

export const factoryKeys = (factory: string) => {
  const base = `${ROOT}:${tag(factory)}`;
  return {
    lease: `${base}:lease`,
    fence: `${base}:fence`,
    arrival: `${base}:arrival`,
    intake: `${base}:intake`,
    proposed: `${base}:proposed`,
    ticketPrefix: `${base}:t:`,
    ticket: (ticketId: string) => `${base}:t:${ticketId}`,
  };
};

export const nodeKeys = (nodeId: string) => {
  const base = `${ROOT}:${tag(`node:${nodeId}`)}`;
  return { orders: `${base}:orders`, orderIds: `${base}:order-ids` };
};

/** One slot for all players: claiming a whole party atomically needs its players side by side. */
export const playerKeys = { live: `${ROOT}:{players}:live` };
export const routeKeys = { servers: `${ROOT}:{routes}:servers` };
/** The cluster-wide arrival counter (the ArrivalSequence port). */
export const arrivalKeys = { global: `${ROOT}:{arrival}:seq` };
