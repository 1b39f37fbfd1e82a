import { describe, expect, it } from 'vitest';
import { defaultAdvertiseAddress, isUnspecifiedHost, parseAdvertiseAddress } from '../../src/cluster/routing/advertise-address.js';

describe('a node\'s client-facing address (--advertise-address)', () => {
  it('defaults to the bound address when the listen host is one, the hostname when it listens on every interface', () => {
    expect(defaultAdvertiseAddress('127.0.0.1', 41234, 'node-7')).toBe('127.0.0.1:41234');
    expect(defaultAdvertiseAddress('10.1.2.3', 50051, 'node-7')).toBe('10.1.2.3:50051');
    expect(defaultAdvertiseAddress('coordinator.internal', 50051, 'node-7')).toBe('coordinator.internal:50051');
    expect(defaultAdvertiseAddress('::1', 50051, 'node-7')).toBe('[::1]:50051');
    for (const everywhere of ['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '::0', '']) {
      expect(isUnspecifiedHost(everywhere)).toBe(true);
      expect(defaultAdvertiseAddress(everywhere, 50052, 'node-7')).toBe('node-7:50052');
    }
    expect(isUnspecifiedHost('::1')).toBe(false);
    expect(isUnspecifiedHost('0.0.0.1')).toBe(false);
  });

  it('a given one must be host:port a client can dial; the error names the flag', () => {
    for (const good of ['node-1.example:50051', '10.0.0.5:1', '[2001:db8::1]:65535', 'localhost:50051']) expect(parseAdvertiseAddress(good)).toBe(good);
    const refused: [string, RegExp][] = [
      ['node-1.example', /--advertise-address: "node-1.example" is not host:port/],
      ['node-1.example:0', /is not host:port \(a port from 1 to 65535/],
      ['node-1.example:70000', /is not host:port/],
      [':50051', /is not host:port/],
      ['2001:db8::1:50051', /is not host:port.*in brackets/],
      ['[node-1]:50051', /is not host:port/],
      ['[1:2]:50051', /\[1:2\] is not an IPv6 address/],
      ['0.0.0.0:50051', /names every interface/],
      ['[::]:50051', /names every interface/],
      ['http://node-1:50051', /is not host:port/],
    ];
    for (const [bad, message] of refused) expect(() => parseAdvertiseAddress(bad), bad).toThrow(message);
  });
});
