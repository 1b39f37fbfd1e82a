// The package's `#events` import in Node (package.json `imports`); browsers get browser/event-emitter.ts.
export { EventEmitter } from 'node:events';
