import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CoreHost } from '../../app/core-host.js';
import { ShardedGateway, ShardsView } from '../../cluster/sharded/index.js';
import { realTimers } from '../../coordinator/ports.js';
import { DEFAULT_SHARD_COUNT, shardIdPrefix, shardOfFactory } from '../../sharding/index.js';
import { connectRedis } from '../connect.js';
import { RedisGatewayStore } from '../relay/gateway-store.js';
import { InboxWrites } from '../relay/inbox-writes.js';
import { MatcherSeat } from '../relay/matcher-seat.js';
import { NodeAnswers } from '../relay/node-answers.js';
import { NodeHeartbeat } from '../relay/node-heartbeat.js';
import { RedisOwnerStore } from '../relay/owner-store.js';
import { waitReady, type RedisNode, type RedisNodeOptions } from '../relay/redis-node.js';
import { RelayGateway } from '../relay/relay-gateway.js';
import { shardRelayKeys } from '../relay/relay-keys.js';
import { defineScripts, type RedisClient } from '../script-set.js';
import { RedisPlayerClaims, releasedAfterCommit, releasedWhenKeptAnswers, partyWaitingIn } from './player-claims.js';
import { ShardKeeper } from './shard-keeper.js';
import { startClusterStats } from '../stats/index.js';
import { stopWithin } from '../stop-within.js';

/** How often this node re-grants its game servers' slots to their shards (the talk's slow control loop). */
const GRANT_MS = 2_000;

/**
 * A node of a sharded cluster (`GAMEFACTORY_CLUSTER_MODE=sharded`): factories hash into shards;
 * the ShardKeeper keeps this node's share of them (balanced over the live nodes, a dead node's
 * moved within the lease); for each shard it owns, a MatcherSeat runs that shard's core on the
 * shard's own keys (`{s:<n>}`); every call of its clients and servers goes through a
 * ShardedGateway to the gateway of its shard, which relays it to the shard's owner wherever it is.
 */
export async function startShardedNode(options: RedisNodeOptions & { readonly shardCount?: number }): Promise<RedisNode> {
  const nodeId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 2_000;
  const shardCount = options.shardCount ?? DEFAULT_SHARD_COUNT;
  const client = connectRedis(options.url);
  client.on('error', (error: Error) => options.log.debug({ error: error.message }, 'redis connection error'));
  await waitReady(client, options.log, options.url);
  await defineScripts(client);
  /** Every connection of the node: dropped at once when Redis does not answer its stop in time. */
  const connections: RedisClient[] = [client];
  const duplicate = async (): Promise<RedisClient> => {
    const c = (client as { duplicate(): RedisClient }).duplicate();
    connections.push(c);
    c.on('error', () => undefined);
    await waitReady(c, options.log, options.url);
    return c;
  };
  const pipelined = async (): Promise<RedisClient> => {
    const c = (client as Redis).duplicate({ enableAutoPipelining: true });
    connections.push(c);
    c.on('error', () => undefined);
    await waitReady(c, options.log, options.url);
    await defineScripts(c);
    return c;
  };
  const heartbeat = new NodeHeartbeat(client, nodeId, options.heartbeatMs ?? leaseMs);
  await heartbeat.start();
  // Every shard's gateway renews the one heartbeat: once per beat for all of them.
  let renewal: { at: number; alive: Promise<boolean> } | undefined;
  const beat = Math.max(50, Math.floor(leaseMs / 3));
  const sharedBeat = Object.assign(Object.create(heartbeat) as NodeHeartbeat, {
    renew: () => {
      if (!renewal || Date.now() - renewal.at >= beat / 2) renewal = { at: Date.now(), alive: heartbeat.renew() };
      return renewal.alive;
    },
  });
  const readers: RedisClient[] = [];
  const gateways: RelayGateway[] = [];
  // One live ticket per player across shards: claimed by the gateway, released by the owner's
  // effects, or, for a retry answered from a kept assignment (no core saw it), where it was answered.
  const claims = new RedisPlayerClaims(client, options.config.placement.ticketTtlMs + 60_000);
  const unreleased = (ticketId: string, error: Error) => options.log.warn({ ticketId, error: error.message }, 'a player claim was not released (it expires)');
  const keptAnswered = (shard: number) => releasedWhenKeptAnswers(claims, shard, unreleased);

  // Each shard's gateway learns a new owner from the keeper's read of every shard's term (one
  // tick, lease/4), not from a GET of its own every beat; and an idle gateway's read of answers
  // blocks 5 s, not 1 s: 64 shards' idle calls were most of an idle node's Redis traffic.
  let keeperOf: ShardKeeper | undefined;
  // Every shard's gateway writes to its owner's inbox through one queue: a tick's requests in one call.
  const inboxWrites = new InboxWrites(client);
  // On one Redis, every shard's answers to this node are read by one blocking call (NodeAnswers);
  // a Redis Cluster will not read keys of several slots at once: there each gateway reads its own.
  const answersReader = client.isCluster ? undefined : await duplicate();
  for (let shard = 0; shard < shardCount; shard++) {
    const reader = answersReader ?? (await duplicate());
    if (!answersReader) readers.push(reader);
    const store = new RedisGatewayStore(client, reader, nodeId, sharedBeat, shardRelayKeys(shard), () => keeperOf?.fenceOf(shard) ?? null, inboxWrites);
    const gateway = new RelayGateway(store, nodeId, options.config.templates, options.log, realTimers, beat, 9 * beat, 5_000, keptAnswered(shard));
    gateway.start(!answersReader);
    gateways.push(gateway);
  }
  const answers =
    answersReader &&
    new NodeAnswers(
      answersReader,
      gateways.map((gateway, shard) => ({ key: shardRelayKeys(shard).out(nodeId), readTo: () => gateway.answersReadTo, take: (entries) => gateway.take(entries) })),
      options.log,
    );
  answers?.start();
  // A shard's core runs only its own shard's factories (memoised: a SHA-256 each).
  const shardOfName = new Map<string, number>();
  const shardOf = (factory: string): number => {
    let shard = shardOfName.get(factory);
    if (shard === undefined) shardOfName.set(factory, (shard = shardOfFactory(factory, shardCount)));
    return shard;
  };
  // Every seat's commits and kept reads on one connection that auto-pipelines them (one Redis
  // only): a tick's commits of many shards, and those issued while the last batch is answered,
  // go out in one write instead of one each. Only these go on it, so its order is theirs.
  const seatWrites = client.isCluster ? client : await pipelined();
  const cores = new Map<number, CoreHost>();
  /** When each shard's core was built (or dropped) here: a new core hears of the game servers in the moments after. */
  const coresSince = new Map<number, number>();
  const seats = new Map<number, Promise<MatcherSeat>>();
  /** The seats made so far, by shard: a find for a shard whose seat serves is taken in process. */
  const madeSeats = new Map<number, MatcherSeat>();
  const seatOf = (shard: number): Promise<MatcherSeat> => {
    let seat = seats.get(shard);
    if (!seat) {
      seat = (async () => {
        const reader = await duplicate();
        readers.push(reader);
        const store = await RedisOwnerStore.open(client, reader, nodeId, leaseMs, options.config.placement.ticketTtlMs, shardRelayKeys(shard), seatWrites);
        const made: MatcherSeat = new MatcherSeat(store, {
          nodeId,
          leaseMs,
          log: options.log,
          now: Date.now,
          timers: realTimers,
          ownServersInProcess: true,
          onTermEnded: (token, reason) => keeperOf?.relinquish(shard, token, reason),
          keptAnswered: keptAnswered(shard),
          build: (place) => options.build({ ...place, idPrefix: shardIdPrefix(shard), players: releasedAfterCommit(made, claims, shard, unreleased, (id) => partyWaitingIn(cores.get(shard)?.view, id)), serves: (factory) => shardOf(factory) === shard }),
          onCore: (core) => {
            if (core) cores.set(shard, core);
            else cores.delete(shard);
            coresSince.set(shard, Date.now());
          },
        });
        return made;
      })();
      seat.then((made) => madeSeats.set(shard, made), () => undefined);
      seats.set(shard, seat);
    }
    return seat;
  };
  // The keeper's beats, renewals and reads of every shard's term on a connection of their own: on
  // the node's main one they waited behind its bulk (a tick's forwarded finds and player claims,
  // a restored shard's tickets), and under load leases lapsed while their renewals queued.
  const control = await duplicate();
  readers.push(control);
  const keeper = await ShardKeeper.open(control, {
    nodeId,
    shardCount,
    leaseMs,
    log: options.log,
    // Creations waiting for a slot: with the finds, what the grant loop apportions slots by.
    queued: (shard) => cores.get(shard)?.view.snapshot().queued ?? 0,
    address: options.advertise,
    hooks: {
      gained: (shard, token) => {
        // Redis failing while the seat restores: it lets go and tries again while the keeper still holds this term.
        const takeUp = async (): Promise<void> => {
          while (keeper.tokenOf(shard) === token) {
            const seat = await seatOf(shard).catch(() => undefined);
            try {
              if (seat) return await seat.hold(token);
            } catch (error) {
              seat?.letGo('restoring failed');
              options.log.warn({ node: nodeId, shard, error: (error as Error).message }, 'a shard could not be taken up; retrying');
            }
            if (!seat) {
              seats.delete(shard);
              madeSeats.delete(shard);
            }
            await new Promise((r) => setTimeout(r, beat));
          }
        };
        void takeUp();
      },
      lost: (shard, _token, reason) => void seats.get(shard)?.then((seat) => seat.letGo(reason), () => undefined),
      handOver: async (shard) => (await seats.get(shard)?.catch(() => undefined))?.letGo('handed over to another node'),
    },
  });
  keeperOf = keeper;
  const maintain = setInterval(() => {
    for (const shard of keeper.ownedShards().keys()) void seats.get(shard)?.then((seat) => seat.maintain(), () => undefined).catch(() => undefined);
  }, beat);
  // A shard whose seat serves here takes this node's finds in process (a stale term's writes are refused by the fence).
  const local = (shard: number) => madeSeats.get(shard);
  // A find relayed to another node's shard tells its client that node's address (read each tick with the membership).
  const ownerAddress = (shard: number) => keeper.ownerAddress(shard);
  const router = new ShardedGateway(gateways, options.config.templates, options.log, claims, (shard) => keeper.demand(shard), local, ownerAddress);
  // The slow grant loop: this node's servers' slots re-apportioned to their shards by demand.
  const granting = setInterval(() => {
    try {
      router.regrant(keeper.shardDemand());
    } catch (error) {
      options.log.warn({ node: nodeId, error: (error as Error).message }, 'slot grant round failed');
    }
  }, GRANT_MS);
  const healthListeners: ((serving: boolean) => void)[] = [];
  const report = (serving: boolean) => healthListeners.forEach((l) => l(serving));
  client.on('ready', () => report(true));
  client.on('close', () => report(false));
  client.on('reconnecting', () => report(false));
  options.log.info({ node: nodeId, redis: options.url, leaseMs, shards: shardCount }, 'joined the sharded cluster');
  const anyCore = () => cores.values().next().value;
  // The templates a reload set (every core of this node runs them; the next core is built with them by the process).
  let templates = options.config.templates;
  const view = new ShardsView(() => new Map([...cores].map(([shard, core]) => [shard, core.view])), (factory) => router.shardOf(factory), () => templates);
  // QueryStats and the operator page on any node: each factory's shard owner answers for it.
  const stats = await startClusterStats({
    client,
    subscriber: await duplicate(),
    nodeId,
    view,
    running: () => cores.size > 0,
    directory: {
      ownerOf: (factory) => keeper.holders()[router.shardOf(factory)],
      owners: () => keeper.holders().filter((n) => n !== undefined),
    },
    templates: () => templates,
    log: options.log,
    shards: { count: shardCount, owned: () => [...cores.keys()], of: (factory) => router.shardOf(factory), since: (shard) => coresSince.get(shard) ?? 0, settleMs: 2 * leaseMs },
  });
  return {
    nodeId,
    commands: router,
    view,
    core: anyCore,
    stats,
    reload(next) {
      // Every shard this node runs takes the file, or none does: each core is asked first.
      const running = [...cores.values()];
      const refused = [...new Set(running.flatMap((core) => core.reloadProblems(next)))];
      if (refused.length > 0) return { refused };
      const changes = new Set<string>();
      for (const core of running) {
        const outcome = core.reload(next);
        if ('refused' in outcome) return outcome; // cannot happen: asked just now, in the same turn
        for (const change of outcome.changes) changes.add(change);
      }
      templates = next.templates;
      router.setTemplates(next.templates);
      for (const gateway of gateways) gateway.setTemplates(next.templates);
      return { changes: [...changes] };
    },
    onHealth(listener) {
      healthListeners.push(listener);
      listener(client.status === 'ready');
    },
    async stop() {
      clearInterval(maintain);
      clearInterval(granting);
      await stopWithin(
        async () => {
          await stats.close();
          await keeper.close();
          for (const seat of seats.values()) await (await seat).close();
          await answers?.close();
          await Promise.all(gateways.map((g) => g.close()));
          for (const reader of readers) reader.disconnect();
          if (seatWrites !== client) seatWrites.disconnect();
          await heartbeat.stop();
          client.disconnect();
        },
        options.stopMs ?? leaseMs,
        connections,
        options.log,
        nodeId,
      );
    },
  };
}
