/**
 * Worker-thread side of SliceWorkerPool: solves the slices it is sent with the pure per-slice
 * solver, measuring each slice's hill-climb budget on this thread's own clock. Loaded through
 * slice-worker-bootstrap.mjs, which registers tsx first.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { solveSlice, type SliceResult, type SliceTask } from './batch-slices.js';

export interface SliceRequest {
  readonly id: number;
  readonly task: SliceTask;
}

export type SliceReply =
  | { readonly id: number; readonly result: SliceResult }
  | { readonly id: number; readonly error: string };

const port = parentPort;
if (port === null) throw new Error('slice-worker: must run on a worker thread');
const now = (): number => performance.now();

port.on('message', (request: SliceRequest) => {
  let reply: SliceReply;
  try {
    reply = { id: request.id, result: solveSlice(request.task, now) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  if ('result' in reply) {
    const r = reply.result;
    const arrays = [r.teamLength, r.members, r.map, r.region, r.scoreGap, r.teamImbalance];
    port.postMessage(reply, arrays.map((array) => array.buffer as ArrayBuffer));
  } else {
    port.postMessage(reply);
  }
});
port.postMessage({ ready: true });
