import { expect } from 'vitest';
import type { OrderDelivery } from '../../src/cluster/ports.js';
import type { ServerOrder } from '../../src/coordinator/messages.js';
import type { ContractCase } from './contract.js';

const reserve = (token: string): ServerOrder => ({ kind: 'reserveSeats', gameId: 'g1', playerIds: ['a'], reservationToken: token, expiresInMs: 1000 });

/** Waits for deliveries that cross a process (a remote adapter); immediate for in-process. */
const eventually = async (check: () => void) => {
  for (let i = 0; ; i++) {
    try {
      return check();
    } catch (error) {
      if (i >= 200) throw error;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
};

/** What every OrderDelivery adapter must do. */
export const orderDeliveryCases: readonly ContractCase<OrderDelivery>[] = [
  {
    name: "an order reaches the sink attached for that server, and only it",
    async run(make) {
      const delivery = await make();
      const s1: ServerOrder[] = [];
      const s2: ServerOrder[] = [];
      await delivery.attach('s1', { send: (o) => s1.push(o) });
      await delivery.attach('s2', { send: (o) => s2.push(o) });
      expect(await delivery.deliver('s1', { orderId: 'o1', order: reserve('x') })).toBe('delivered');
      await eventually(() => expect(s1).toEqual([reserve('x')]));
      expect(s2).toEqual([]);
    },
  },
  {
    name: 'the same order id delivered twice is sent once',
    async run(make) {
      const delivery = await make();
      const got: ServerOrder[] = [];
      await delivery.attach('s1', { send: (o) => got.push(o) });
      await delivery.deliver('s1', { orderId: 'o1', order: reserve('x') });
      expect(await delivery.deliver('s1', { orderId: 'o1', order: reserve('x') })).toBe('duplicate');
      await delivery.deliver('s1', { orderId: 'o2', order: reserve('y') });
      await eventually(() => expect(got).toEqual([reserve('x'), reserve('y')]));
    },
  },
  {
    name: 'a server with no stream attached is unreachable',
    async run(make) {
      const delivery = await make();
      expect(await delivery.deliver('nobody', { orderId: 'o1', order: reserve('x') })).toBe('unreachable');
    },
  },
  {
    name: 'detach by a replaced stream leaves the newer stream attached',
    async run(make) {
      const delivery = await make();
      const old: ServerOrder[] = [];
      const fresh: ServerOrder[] = [];
      const oldSink = { send: (o: ServerOrder) => old.push(o) };
      await delivery.attach('s1', oldSink);
      await delivery.attach('s1', { send: (o) => fresh.push(o) });
      await delivery.detach('s1', oldSink);
      expect(await delivery.deliver('s1', { orderId: 'o1', order: reserve('x') })).toBe('delivered');
      await eventually(() => expect(fresh).toHaveLength(1));
      expect(old).toEqual([]);
    },
  },
  {
    name: 'after detach the server is unreachable',
    async run(make) {
      const delivery = await make();
      const sink = { send: () => {} };
      await delivery.attach('s1', sink);
      await delivery.detach('s1', sink);
      expect(await delivery.deliver('s1', { orderId: 'o1', order: reserve('x') })).toBe('unreachable');
    },
  },
];
