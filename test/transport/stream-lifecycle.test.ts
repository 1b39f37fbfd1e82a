import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StreamLifecycle } from '../../src/transport/grpc/stream-lifecycle.js';

/** Just what StreamLifecycle uses of a grpc-js duplex call: writes that can fill up, pause and resume. */
class FakeDuplex extends EventEmitter {
  paused = false;
  full = false;
  writableLength = 0;
  write(): boolean {
    return !this.full;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  isPaused(): boolean {
    return this.paused;
  }
}

describe('StreamLifecycle read holds', () => {
  it('reads again only once every reason to hold them is gone (a full write buffer, inputs waiting their turn)', () => {
    const call = new FakeDuplex();
    const stream = new StreamLifecycle(call as never, true);
    call.full = true;
    stream.write({});
    expect(call.paused).toBe(true);
    stream.write({}); // still full: one hold for the buffer, not one a write
    stream.holdReads(); // the inputs' hold
    call.full = false;
    call.emit('drain');
    expect(call.paused).toBe(true);
    stream.releaseReads();
    expect(call.paused).toBe(false);
    stream.releaseReads(); // one release too many changes nothing
    stream.holdReads();
    expect(call.paused).toBe(true);
  });
});
